-- 023: pre-rendered incident fragments (issue 13, store/fragments.h). An incident's JSON as
-- the API shows it, without what ballots and comments change (its tallies and comment
-- count, spliced in at read time), is kept in incident_fragments. A fragment is served only
-- while no fragment_stale row names its incident: every change to what a fragment shows
-- (the incident's columns, its sources, its questions, its game's league, season type or
-- teams, a team's name) inserts that row in the same transaction, by the triggers below, so
-- no write path can forget it and a stale fragment is never served on any node. A reader
-- without a valid fragment renders the incident from its rows (the same bytes); the
-- fragments are rebuilt after each write's commit and by `whistle migrate`
-- (app/incident.c incident_fragments_rebuild).
CREATE TABLE incident_fragments (
    incident_id TEXT PRIMARY KEY,
    body        TEXT NOT NULL
);

-- @sqlite-only (store/migrate.c applies what follows, up to the PostgreSQL part, on SQLite)
-- SQLite keeps the stale list WITHOUT ROWID (one b-tree instead of an index and a table);
-- not the fragments: a WITHOUT ROWID row keeps only ~1 KB on its b-tree page and the rest
-- of a fragment (4 KB) in overflow pages, measured 40 % slower to read.
CREATE TABLE fragment_stale (
    incident_id TEXT PRIMARY KEY
) WITHOUT ROWID;
INSERT INTO fragment_stale (incident_id) SELECT id FROM incidents;
CREATE TRIGGER fragment_incident_insert AFTER INSERT ON incidents BEGIN
    INSERT INTO fragment_stale (incident_id) VALUES (NEW.id) ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER fragment_incident_update AFTER UPDATE OF id, game_id, title, play_description,
    neutral_summary, category, period, clock, original_ruling, final_ruling, replay_involved,
    consequence, status, origin_kind, provenance, reviewed_at, published_at, created_at,
    updated_at, visibility, duplicate_of, slug, penalty_called, question_version ON incidents
BEGIN
    INSERT INTO fragment_stale (incident_id) VALUES (NEW.id) ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER fragment_source_insert AFTER INSERT ON sources BEGIN
    INSERT INTO fragment_stale (incident_id) VALUES (NEW.incident_id) ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER fragment_source_update AFTER UPDATE ON sources BEGIN
    INSERT INTO fragment_stale (incident_id) VALUES (OLD.incident_id), (NEW.incident_id)
        ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER fragment_source_delete AFTER DELETE ON sources BEGIN
    INSERT INTO fragment_stale (incident_id) VALUES (OLD.incident_id) ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER fragment_question_insert AFTER INSERT ON questions BEGIN
    INSERT INTO fragment_stale (incident_id) VALUES (NEW.incident_id) ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER fragment_question_update AFTER UPDATE ON questions BEGIN
    INSERT INTO fragment_stale (incident_id) VALUES (OLD.incident_id), (NEW.incident_id)
        ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER fragment_question_delete AFTER DELETE ON questions BEGIN
    INSERT INTO fragment_stale (incident_id) VALUES (OLD.incident_id) ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER fragment_game_update AFTER UPDATE OF league, season_type, home_team_id,
    away_team_id ON games BEGIN
    INSERT INTO fragment_stale (incident_id) SELECT id FROM incidents WHERE game_id = NEW.id
        ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER fragment_team_update AFTER UPDATE OF name ON teams BEGIN
    INSERT INTO fragment_stale (incident_id)
        SELECT i.id FROM games g JOIN incidents i ON i.game_id = g.id
        WHERE g.home_team_id = NEW.id OR g.away_team_id = NEW.id
        ON CONFLICT DO NOTHING;
END;

-- @postgresql-only (store/migrate.c applies what follows on PostgreSQL alone)
-- A write that finds the stale row already there updates it (a no-op that locks it) rather
-- than doing nothing: a rebuild that is deleting that row (app/incident.c) then waits for
-- the write's commit and renders what it wrote, or the write waits for the rebuild and
-- inserts the row again; DO NOTHING would let the rebuild take away the row the write
-- relied on and store what the write had not yet committed.
CREATE TABLE fragment_stale (
    incident_id TEXT PRIMARY KEY
);
INSERT INTO fragment_stale (incident_id) SELECT id FROM incidents;
CREATE FUNCTION whistle_fragment_stale() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'incidents' THEN
        INSERT INTO fragment_stale (incident_id) VALUES (NEW.id) ON CONFLICT (incident_id) DO UPDATE SET incident_id = excluded.incident_id;
    ELSIF TG_TABLE_NAME = 'games' THEN
        INSERT INTO fragment_stale (incident_id) SELECT id FROM incidents WHERE game_id = NEW.id
            ON CONFLICT (incident_id) DO UPDATE SET incident_id = excluded.incident_id;
    ELSIF TG_TABLE_NAME = 'teams' THEN
        INSERT INTO fragment_stale (incident_id)
            SELECT i.id FROM games g JOIN incidents i ON i.game_id = g.id
            WHERE g.home_team_id = NEW.id OR g.away_team_id = NEW.id
            ON CONFLICT (incident_id) DO UPDATE SET incident_id = excluded.incident_id;
    ELSE
        IF TG_OP <> 'INSERT' THEN
            INSERT INTO fragment_stale (incident_id) VALUES (OLD.incident_id)
                ON CONFLICT (incident_id) DO UPDATE SET incident_id = excluded.incident_id;
        END IF;
        IF TG_OP <> 'DELETE' THEN
            INSERT INTO fragment_stale (incident_id) VALUES (NEW.incident_id)
                ON CONFLICT (incident_id) DO UPDATE SET incident_id = excluded.incident_id;
        END IF;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER fragment_incident_insert AFTER INSERT ON incidents
    FOR EACH ROW EXECUTE FUNCTION whistle_fragment_stale();
CREATE TRIGGER fragment_incident_update AFTER UPDATE OF id, game_id, title, play_description,
    neutral_summary, category, period, clock, original_ruling, final_ruling, replay_involved,
    consequence, status, origin_kind, provenance, reviewed_at, published_at, created_at,
    updated_at, visibility, duplicate_of, slug, penalty_called, question_version ON incidents
    FOR EACH ROW EXECUTE FUNCTION whistle_fragment_stale();
CREATE TRIGGER fragment_source AFTER INSERT OR UPDATE OR DELETE ON sources
    FOR EACH ROW EXECUTE FUNCTION whistle_fragment_stale();
CREATE TRIGGER fragment_question AFTER INSERT OR UPDATE OR DELETE ON questions
    FOR EACH ROW EXECUTE FUNCTION whistle_fragment_stale();
CREATE TRIGGER fragment_game_update AFTER UPDATE OF league, season_type, home_team_id,
    away_team_id ON games FOR EACH ROW EXECUTE FUNCTION whistle_fragment_stale();
CREATE TRIGGER fragment_team_update AFTER UPDATE OF name ON teams
    FOR EACH ROW EXECUTE FUNCTION whistle_fragment_stale();
