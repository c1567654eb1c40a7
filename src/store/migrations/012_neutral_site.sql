-- Neutral site (issue 17, docs/games.md): nflverse's `location` ("Neutral") and CFBD's
-- `neutralSite`. The spec's Game has no field for it, so it is not in the API's Game JSON;
-- it is imported, exported and shown on the game and incident pages ("at a neutral site").
ALTER TABLE games ADD COLUMN neutral_site INTEGER NOT NULL DEFAULT 0;
