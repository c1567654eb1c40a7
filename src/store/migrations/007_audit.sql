-- The audit log (docs/architecture.md): one row per state-changing action by a person or an
-- operator — an editorial change, a moderation decision, an account or credential action —
-- written by the use case in the same transaction as the change.
CREATE TABLE audit_log (
    id          TEXT PRIMARY KEY,
    at          BIGINT NOT NULL,
    actor       TEXT NOT NULL,   -- "operator" (CLI), "account:<id>", "worker"
    role        TEXT,            -- the actor's role when it acted (editor, admin, …)
    action      TEXT NOT NULL,   -- "incident.withdraw", "incident.merge", …
    target_kind TEXT NOT NULL,   -- "incident", "comment", "account", …
    target_id   TEXT NOT NULL,
    before_json TEXT,            -- the changed fields before, a JSON object
    after_json  TEXT,            -- and after
    reason      TEXT,
    request_id  TEXT             -- X-Request-Id of the HTTP request; NULL on the CLI
);
CREATE INDEX audit_by_time ON audit_log (at DESC, id DESC);
CREATE INDEX audit_by_target ON audit_log (target_kind, target_id, at DESC);
