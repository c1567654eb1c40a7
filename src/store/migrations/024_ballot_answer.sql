-- 024: a ballot's answer in the ballot's own round trip (issue 20). The JSON answer to a
-- ballot carries the tallies after it and the question's labels (web/vote.c); the node read
-- them with two more round trips after the write (the incident, then its tallies, in a read
-- transaction). whistle_ballot casts the ballot with whistle_cast_ballot (migration 013,
-- unchanged: the same arguments, the same locks and windows) and, when the ballot stands
-- (o_wait 0), reads in the same transaction the tallies of the question version voted on,
-- one "rooting:correct:incorrect:unsure" item per group joined by ';' (o_tallies, NULL when
-- no group has a row), and that version's three labels. store/votes.c ballots_cast_server
-- calls it; a node of the previous release still calls whistle_cast_ballot.

-- @postgresql-only (store/migrate.c applies what follows on PostgreSQL alone)
CREATE FUNCTION whistle_ballot(p_incident TEXT, p_visibility TEXT, p_version BIGINT,
                               p_voter TEXT, p_choice TEXT, p_rooting TEXT, p_now BIGINT,
                               p_subjects TEXT[], p_limits BIGINT[], p_windows BIGINT[],
                               p_slot BIGINT, OUT o_wait BIGINT, OUT o_window INT,
                               OUT o_tallies TEXT, OUT o_a_label TEXT, OUT o_b_label TEXT,
                               OUT o_unsure_label TEXT)
LANGUAGE plpgsql AS $$
BEGIN
    SELECT c.o_wait, c.o_window INTO o_wait, o_window
        FROM whistle_cast_ballot(p_incident, p_visibility, p_version, p_voter, p_choice,
                                 p_rooting, p_now, p_subjects, p_limits, p_windows, p_slot) c;
    IF o_wait <> 0 THEN
        RETURN;
    END IF;
    SELECT string_agg(g.rooting || ':' || g.c || ':' || g.i || ':' || g.u, ';' ORDER BY g.rooting)
        INTO o_tallies
        FROM (SELECT rooting, sum(correct) AS c, sum(incorrect) AS i, sum(unsure) AS u
              FROM vote_tallies WHERE incident_id = p_incident AND question_version = p_version
              GROUP BY rooting) g;
    SELECT option_a_label, option_b_label, unsure_label
        INTO o_a_label, o_b_label, o_unsure_label
        FROM questions WHERE incident_id = p_incident AND version = p_version;
END
$$;
