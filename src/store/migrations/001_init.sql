-- 001: teams, games, incidents, questions, sources, ballots and their tallies.
-- Portable dialect (SQLite and PostgreSQL): timestamps are integer microseconds since the
-- epoch (UTC), booleans are integers 0/1, JSON objects are stored as text.

CREATE TABLE teams (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    abbreviation  TEXT NOT NULL,
    logo_url      TEXT,
    conference    TEXT,
    league        TEXT CHECK (league IN ('college', 'nfl')),
    division      TEXT,
    short_name    TEXT,
    active        INTEGER NOT NULL DEFAULT 1,
    aliases       TEXT NOT NULL DEFAULT '[]'
);

CREATE TABLE games (
    id            TEXT PRIMARY KEY,
    home_team_id  TEXT NOT NULL REFERENCES teams (id),
    away_team_id  TEXT NOT NULL REFERENCES teams (id),
    home_score    INTEGER,
    away_score    INTEGER,
    starts_at     BIGINT,
    kickoff_tbd   INTEGER NOT NULL DEFAULT 0,
    period        INTEGER,
    clock         TEXT,
    status        TEXT NOT NULL CHECK (status IN ('upcoming', 'live', 'final', 'postponed',
                                                 'delayed', 'canceled', 'unknown')),
    season        INTEGER NOT NULL,
    week          INTEGER NOT NULL,
    league        TEXT NOT NULL CHECK (league IN ('college', 'nfl')),
    season_type   TEXT NOT NULL CHECK (season_type IN ('preseason', 'regular', 'postseason',
                                                       'unknown')),
    stage_label   TEXT,
    created_at    BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL,
    -- sort key: unknown kickoffs last in both directions
    kickoff_known INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX games_by_kickoff ON games (kickoff_known DESC, starts_at, id);
CREATE INDEX games_by_home ON games (home_team_id);
CREATE INDEX games_by_away ON games (away_team_id);
CREATE INDEX games_by_season ON games (season, week);

-- visibility: published (public), withdrawn (404), merged (308 to duplicate_of)
CREATE TABLE incidents (
    id               TEXT PRIMARY KEY,
    game_id          TEXT NOT NULL REFERENCES games (id),
    title            TEXT NOT NULL,
    play_description TEXT NOT NULL,
    neutral_summary  TEXT,
    category         TEXT NOT NULL CHECK (category IN ('penalty', 'replay', 'clock', 'spot',
                                                       'targeting', 'other', 'no_call',
                                                       'catch')),
    period           INTEGER,
    clock            TEXT,
    original_ruling  TEXT,
    final_ruling     TEXT,
    replay_involved  INTEGER,
    consequence      TEXT,
    status           TEXT NOT NULL CHECK (status IN ('developing', 'corroborated', 'explained',
                                                     'resolved')),
    origin_kind      TEXT NOT NULL CHECK (origin_kind IN ('human', 'agent', 'migration')),
    provenance       TEXT NOT NULL,
    reviewed_at      BIGINT,
    published_at     BIGINT NOT NULL,
    created_at       BIGINT NOT NULL,
    updated_at       BIGINT NOT NULL,
    visibility       TEXT NOT NULL DEFAULT 'published'
                     CHECK (visibility IN ('published', 'withdrawn', 'merged')),
    duplicate_of     TEXT REFERENCES incidents (id),
    slug             TEXT UNIQUE,
    penalty_called   INTEGER,
    comment_count    INTEGER NOT NULL DEFAULT 0,
    question_version INTEGER
);
CREATE INDEX incidents_by_published ON incidents (visibility, published_at DESC, id DESC);
CREATE INDEX incidents_by_game ON incidents (game_id, published_at DESC, id DESC);

-- slugs an incident had before (historical page URLs redirect to the current page)
CREATE TABLE incident_slugs (
    slug        TEXT PRIMARY KEY,
    incident_id TEXT NOT NULL REFERENCES incidents (id)
);

-- every question version an incident has had; the current one has superseded_at NULL
CREATE TABLE questions (
    incident_id     TEXT NOT NULL REFERENCES incidents (id),
    version         INTEGER NOT NULL CHECK (version >= 1),
    question_type   TEXT NOT NULL,
    question_text   TEXT NOT NULL,
    option_a_label  TEXT NOT NULL,
    option_b_label  TEXT NOT NULL,
    unsure_label    TEXT NOT NULL,
    stored_a_label  TEXT NOT NULL,
    stored_b_label  TEXT NOT NULL,
    stored_unsure_label TEXT NOT NULL,
    factual_context TEXT NOT NULL DEFAULT '{}',
    created_at      BIGINT NOT NULL,
    superseded_at   BIGINT,
    PRIMARY KEY (incident_id, version)
);

CREATE TABLE sources (
    id           TEXT PRIMARY KEY,
    incident_id  TEXT NOT NULL REFERENCES incidents (id),
    position     INTEGER NOT NULL,
    url          TEXT NOT NULL,
    title        TEXT NOT NULL,
    publisher    TEXT,
    source_kind  TEXT NOT NULL CHECK (source_kind IN ('report', 'video', 'image',
                                                      'official_statement', 'rule', 'other')),
    published_at BIGINT,
    added_at     BIGINT NOT NULL,
    supports     TEXT NOT NULL,
    added_by     TEXT
);
CREATE INDEX sources_by_incident ON sources (incident_id, position);

-- one ballot per voter per question version; voter is a keyed hash (or legacy:<n> for
-- imported ballots). Ballots of superseded versions stay here, archived, never reinterpreted.
CREATE TABLE ballots (
    incident_id      TEXT NOT NULL REFERENCES incidents (id),
    question_version INTEGER NOT NULL,
    voter            TEXT NOT NULL,
    choice           TEXT NOT NULL CHECK (choice IN ('correct', 'incorrect', 'unsure')),
    rooting          TEXT CHECK (rooting IN ('home', 'away', 'neutral', 'undisclosed')),
    created_at       BIGINT NOT NULL,
    updated_at       BIGINT NOT NULL,
    PRIMARY KEY (incident_id, question_version, voter)
);

-- aggregates maintained in the same transaction as every ballot change
CREATE TABLE vote_tallies (
    incident_id      TEXT NOT NULL REFERENCES incidents (id),
    question_version INTEGER NOT NULL,
    rooting          TEXT NOT NULL CHECK (rooting IN ('home', 'away', 'neutral', 'undisclosed',
                                                      'unspecified')),
    correct          BIGINT NOT NULL DEFAULT 0,
    incorrect        BIGINT NOT NULL DEFAULT 0,
    unsure           BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (incident_id, question_version, rooting)
);
