-- 016: staff sessions end after --staff-idle-timeout without a request (issue 16): each
-- session's last recorded request (NULL: none since it was created). Portable dialect.
ALTER TABLE sessions ADD COLUMN last_seen_at BIGINT;
