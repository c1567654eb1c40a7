-- Reads that cost one page (issue 13, docs/operators.md): the game attributes the incident
-- list filters on are copied onto each incident (g_*), kept in step by the store in the
-- same statement sequence as every write of a game (games_upsert) or an incident
-- (admin_upsert_incident), so each filter has an index in the list's order and a deep
-- OFFSET walks a narrow index (the list selects the page's ids first, then joins).
ALTER TABLE incidents ADD COLUMN g_season INTEGER;
ALTER TABLE incidents ADD COLUMN g_week INTEGER;
ALTER TABLE incidents ADD COLUMN g_league TEXT;
ALTER TABLE incidents ADD COLUMN g_season_type TEXT;
ALTER TABLE incidents ADD COLUMN g_home TEXT;
ALTER TABLE incidents ADD COLUMN g_away TEXT;
UPDATE incidents SET (g_season, g_week, g_league, g_season_type, g_home, g_away) =
    (SELECT g.season, g.week, g.league, g.season_type, g.home_team_id, g.away_team_id
     FROM games g WHERE g.id = incidents.game_id);
CREATE INDEX incidents_by_season ON incidents (visibility, g_season, g_week, published_at DESC, id DESC);
CREATE INDEX incidents_by_league ON incidents (visibility, g_league, g_season_type, published_at DESC, id DESC);
CREATE INDEX incidents_by_type ON incidents (visibility, g_season_type, published_at DESC, id DESC);
CREATE INDEX incidents_by_home ON incidents (visibility, g_home, published_at DESC, id DESC);
CREATE INDEX incidents_by_away ON incidents (visibility, g_away, published_at DESC, id DESC);
CREATE INDEX incidents_by_category ON incidents (visibility, category, published_at DESC, id DESC);
CREATE INDEX incidents_by_status ON incidents (visibility, status, published_at DESC, id DESC);
-- games: the team and league filters in the list's order
CREATE INDEX games_by_home_kickoff ON games (home_team_id, kickoff_known DESC, starts_at, id);
CREATE INDEX games_by_away_kickoff ON games (away_team_id, kickoff_known DESC, starts_at, id);
CREATE INDEX games_by_league_kickoff ON games (league, season_type, kickoff_known DESC, starts_at, id);
CREATE INDEX games_by_season_kickoff ON games (season, week, kickoff_known DESC, starts_at, id);
