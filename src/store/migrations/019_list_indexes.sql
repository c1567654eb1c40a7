-- Every list filter served by an index in the list's order (issue 13, docs/scale.md).
-- The store picks one index per request (the most selective filter present, in a fixed
-- order: store/incidents.c and store/games.c), SQLite through INDEXED BY; the index's key
-- is that filter's columns then the list order, and every other filter column follows, so
-- the remaining filters are checked inside the index (no table row is read until the
-- page's ids are known). A team is two ordered scans (home, away) merged.
DROP INDEX incidents_by_season;
DROP INDEX incidents_by_league;
DROP INDEX incidents_by_type;
DROP INDEX incidents_by_home;
DROP INDEX incidents_by_away;
DROP INDEX incidents_by_category;
DROP INDEX incidents_by_status;
DROP INDEX incidents_by_published;
DROP INDEX games_by_home_kickoff;
DROP INDEX games_by_away_kickoff;
DROP INDEX games_by_league_kickoff;
DROP INDEX games_by_season_kickoff;
DROP INDEX games_by_kickoff;
CREATE INDEX incidents_by_published ON incidents (visibility, published_at DESC, id DESC, game_id, g_home, g_away, g_season, g_week, g_league, g_season_type, category, status, question_version);
CREATE INDEX incidents_by_home ON incidents (visibility, g_home, published_at DESC, id DESC, game_id, g_away, g_season, g_week, g_league, g_season_type, category, status, question_version);
CREATE INDEX incidents_by_away ON incidents (visibility, g_away, published_at DESC, id DESC, game_id, g_home, g_season, g_week, g_league, g_season_type, category, status, question_version);
CREATE INDEX incidents_by_season_week ON incidents (visibility, g_season, g_week, published_at DESC, id DESC, game_id, g_home, g_away, g_league, g_season_type, category, status, question_version);
CREATE INDEX incidents_by_season ON incidents (visibility, g_season, published_at DESC, id DESC, game_id, g_home, g_away, g_week, g_league, g_season_type, category, status, question_version);
CREATE INDEX incidents_by_week ON incidents (visibility, g_week, published_at DESC, id DESC, game_id, g_home, g_away, g_season, g_league, g_season_type, category, status, question_version);
CREATE INDEX incidents_by_league_type ON incidents (visibility, g_league, g_season_type, published_at DESC, id DESC, game_id, g_home, g_away, g_season, g_week, category, status, question_version);
CREATE INDEX incidents_by_league ON incidents (visibility, g_league, published_at DESC, id DESC, game_id, g_home, g_away, g_season, g_week, g_season_type, category, status, question_version);
CREATE INDEX incidents_by_type ON incidents (visibility, g_season_type, published_at DESC, id DESC, game_id, g_home, g_away, g_season, g_week, g_league, category, status, question_version);
CREATE INDEX incidents_by_category ON incidents (visibility, category, published_at DESC, id DESC, game_id, g_home, g_away, g_season, g_week, g_league, g_season_type, status, question_version);
CREATE INDEX incidents_by_status ON incidents (visibility, status, published_at DESC, id DESC, game_id, g_home, g_away, g_season, g_week, g_league, g_season_type, category, question_version);
-- has_verdict=false: the incidents without a question
CREATE INDEX incidents_unverdicted ON incidents (visibility, published_at DESC, id DESC, game_id, g_home, g_away, g_season, g_week, g_league, g_season_type, category, status, question_version) WHERE question_version IS NULL;
-- games: each filter in both orders (sort=kickoff and sort=recent)
CREATE INDEX games_all_kickoff ON games (kickoff_known DESC, starts_at, id, home_team_id, away_team_id, season, week, league, season_type, status);
CREATE INDEX games_all_recent ON games (kickoff_known DESC, starts_at DESC, id, home_team_id, away_team_id, season, week, league, season_type, status);
CREATE INDEX games_home_kickoff ON games (home_team_id, kickoff_known DESC, starts_at, id, away_team_id, season, week, league, season_type, status);
CREATE INDEX games_home_recent ON games (home_team_id, kickoff_known DESC, starts_at DESC, id, away_team_id, season, week, league, season_type, status);
CREATE INDEX games_away_kickoff ON games (away_team_id, kickoff_known DESC, starts_at, id, home_team_id, season, week, league, season_type, status);
CREATE INDEX games_away_recent ON games (away_team_id, kickoff_known DESC, starts_at DESC, id, home_team_id, season, week, league, season_type, status);
CREATE INDEX games_season_kickoff ON games (season, kickoff_known DESC, starts_at, id, home_team_id, away_team_id, week, league, season_type, status);
CREATE INDEX games_season_recent ON games (season, kickoff_known DESC, starts_at DESC, id, home_team_id, away_team_id, week, league, season_type, status);
CREATE INDEX games_week_kickoff ON games (week, kickoff_known DESC, starts_at, id, home_team_id, away_team_id, season, league, season_type, status);
CREATE INDEX games_week_recent ON games (week, kickoff_known DESC, starts_at DESC, id, home_team_id, away_team_id, season, league, season_type, status);
CREATE INDEX games_league_kickoff ON games (league, kickoff_known DESC, starts_at, id, home_team_id, away_team_id, season, week, season_type, status);
CREATE INDEX games_league_recent ON games (league, kickoff_known DESC, starts_at DESC, id, home_team_id, away_team_id, season, week, season_type, status);
CREATE INDEX games_type_kickoff ON games (season_type, kickoff_known DESC, starts_at, id, home_team_id, away_team_id, season, week, league, status);
CREATE INDEX games_type_recent ON games (season_type, kickoff_known DESC, starts_at DESC, id, home_team_id, away_team_id, season, week, league, status);
CREATE INDEX games_status_kickoff ON games (status, kickoff_known DESC, starts_at, id, home_team_id, away_team_id, season, week, league, season_type);
CREATE INDEX games_status_recent ON games (status, kickoff_known DESC, starts_at DESC, id, home_team_id, away_team_id, season, week, league, season_type);
