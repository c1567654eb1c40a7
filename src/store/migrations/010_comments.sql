-- 010: comments on incidents with moderation (issue 15; docs/comments.md): display names,
-- account roles, comments, reports, the moderation log and the word list. Portable dialect.
-- incidents.comment_count (001) counts the visible comments (published, not hidden by
-- reports, author not suspended), replies included; every change moves it in the same
-- transaction.

-- accounts.display_name (002) is the public name shown on comments (never the email), set
-- once on /account/profile; display_key is its lower-case letters and digits, unique so
-- that "Fan_1" and "fan 1" cannot both exist
ALTER TABLE accounts ADD COLUMN display_key TEXT;
CREATE UNIQUE INDEX accounts_display_key ON accounts (display_key);

-- roles given by an operator (`whistle account grant EMAIL ROLE`)
CREATE TABLE account_roles (
    account_id  TEXT NOT NULL REFERENCES accounts (id),
    role        TEXT NOT NULL CHECK (role IN ('moderator', 'editor', 'admin')),
    granted_at  BIGINT NOT NULL,
    granted_by  TEXT NOT NULL,
    PRIMARY KEY (account_id, role)
);

CREATE TABLE comments (
    id             TEXT PRIMARY KEY,
    incident_id    TEXT NOT NULL REFERENCES incidents (id),
    parent_id      TEXT REFERENCES comments (id),
    account_id     TEXT NOT NULL REFERENCES accounts (id),
    body           TEXT NOT NULL,
    status         TEXT NOT NULL
                   CHECK (status IN ('pending', 'published', 'rejected', 'deleted')),
    held_reason    TEXT CHECK (held_reason IN ('new_account', 'word_list')),
    report_hidden  INTEGER NOT NULL DEFAULT 0,
    author_hidden  INTEGER NOT NULL DEFAULT 0,
    -- published, not report_hidden, not author_hidden: counted in incidents.comment_count
    visible        INTEGER NOT NULL DEFAULT 0,
    featured       INTEGER NOT NULL DEFAULT 0,
    -- distinct accounts that reported it since its last review
    open_reports   INTEGER NOT NULL DEFAULT 0,
    -- visible replies (a top-level comment's)
    reply_count    INTEGER NOT NULL DEFAULT 0,
    created_at     BIGINT NOT NULL,
    edited_at      BIGINT,
    deleted_at     BIGINT,
    reviewed_at    BIGINT
);
CREATE INDEX comments_thread ON comments (incident_id, parent_id, created_at);
CREATE INDEX comments_visible ON comments (incident_id, visible, created_at);
CREATE INDEX comments_by_parent ON comments (parent_id, created_at);
CREATE INDEX comments_by_account ON comments (account_id, created_at);
CREATE INDEX comments_by_status ON comments (status, created_at);
CREATE INDEX comments_reported ON comments (open_reports, created_at);
CREATE INDEX comments_recent ON comments (created_at);

-- one report per account per comment: reporting twice counts once
CREATE TABLE comment_reports (
    comment_id  TEXT NOT NULL REFERENCES comments (id),
    account_id  TEXT NOT NULL REFERENCES accounts (id),
    reason      TEXT NOT NULL CHECK (reason IN ('spam', 'abuse', 'off_topic', 'other')),
    created_at  BIGINT NOT NULL,
    PRIMARY KEY (comment_id, account_id)
);

-- every moderation decision and rule event: who ("account:<id>", "operator", "rules"),
-- when, what, why; comment_id or the subject account (suspensions)
CREATE TABLE moderation_log (
    id          TEXT PRIMARY KEY,
    comment_id  TEXT REFERENCES comments (id),
    account_id  TEXT REFERENCES accounts (id),
    actor       TEXT NOT NULL,
    action      TEXT NOT NULL CHECK (action IN ('held', 'approve', 'reject', 'feature',
                    'unfeature', 'hidden_by_reports', 'suspend', 'unsuspend', 'edit_held',
                    'delete')),
    reason      TEXT,
    created_at  BIGINT NOT NULL
);
CREATE INDEX moderation_log_by_comment ON moderation_log (comment_id, created_at);
CREATE INDEX moderation_log_by_account ON moderation_log (account_id, created_at);

-- the operator's word list (`whistle comment words add|remove|list`): a comment that
-- contains one of these words or phrases waits for review
CREATE TABLE comment_words (
    word        TEXT PRIMARY KEY,
    created_at  BIGINT NOT NULL
);
