-- The games index (/games, docs/pages.md) pages through every game by league, season, season
-- type (postseason first), week and kickoff: this index serves that order, so a page walks
-- the index instead of sorting every game. The key list is store/games.c games_week_keys()
-- word for word (the season type's rank is an expression: SQLite and PostgreSQL use an index
-- on an expression only for the same expression); test_domain_vocab holds the two together.
CREATE INDEX games_by_week ON games (league, season DESC, (CASE season_type WHEN 'preseason' THEN 2 WHEN 'regular' THEN 1 WHEN 'postseason' THEN 0 WHEN 'unknown' THEN 3 ELSE 4 END), week DESC, kickoff_known DESC, starts_at, id);
