#ifndef WHISTLE_DOMAIN_LIMITS_H
#define WHISTLE_DOMAIN_LIMITS_H

#include <stdbool.h>
#include <stdint.h>

#include "domain/quota.h"

/*
 * The limits and policy switches that operators set with `whistle serve` / `whistle worker`
 * options (cli/settings.c is the table: names, ranges, defaults; docs/operators.md is
 * generated from it). Filled once at start-up, then only read: handlers reach it through
 * req->cfg->limits (struct server_config), the worker through its struct worker_config.
 * There is no global copy.
 */
struct whistle_limits {
    int vote_per_voter;     /* Fan Verdict ballots per minute per voter (--vote-limit-voter) */
    int vote_per_ip;        /* ballots per minute per client address (--vote-limit-ip) */
    int anon_vote_per_ip;   /* anonymous ballots per client address per debate per day */
    int new_voter_per_ip;   /* new anonymous voters per client address per hour */
    int signin_per_account; /* failed sign-ins per (email address, client address) per window */
    int signin_per_ip;      /* failed sign-ins per client address per window */
    int mail_forms_per_ip;  /* sign-ups + reset requests per client address per hour */
    int max_agent_keys;     /* active agent keys per account */
    /* leads per window, in domain/quota.h's order (--lead-quota-minute, --lead-quota-day,
     * --lead-quota-global; the spec's 3, 20, 200 unless raised for a load test) */
    int64_t lead_quota[QUOTA_COUNT];
    int comment_per_account; /* new comments per minute per account (a day: ten times) */
    int comment_per_ip;      /* new comments per minute per client address (a day: ten times) */
    /* argon2id cost of every password hash (domain/account.h): memory in KiB
     * (--password-memory-kib) and passes (libsodium's interactive 2; tests set 1); 0 takes
     * libsodium's interactive value */
    int password_memory_kib;
    unsigned long long password_ops;
    /* a staff session (moderator, editor, admin) ends after this long without a request
     * (--staff-idle-timeout; domain/account.h account_session_idle_ended), in µs */
    int64_t staff_idle_us;
    /* research: signals of completed scout runs count as independent discussion; the scout
     * status op reports it (--scout-candidates) */
    bool scout_candidates;
};

#endif
