-- 021: the 13-argument whistle_cast_ballot of migration 009 is dropped (issue 20). It took
-- the voter's and the address's windows only, so a node of a release before migration 013
-- calling it bypassed the anonymous ballot caps of issue 14 (per address per debate, new
-- voters per address). Such a node's ballots now fail (503 unavailable) until it runs this
-- release: docs/deploy.md "Rolling restarts and upgrades". The 11-argument function of
-- migration 013 is the one every node of a release since 013 calls.

-- @postgresql-only (store/migrate.c applies what follows on PostgreSQL alone)
DROP FUNCTION IF EXISTS whistle_cast_ballot(TEXT, TEXT, BIGINT, TEXT, TEXT, TEXT, BIGINT, TEXT,
                                            BIGINT, TEXT, BIGINT, BIGINT, BIGINT);
