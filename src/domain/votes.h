#ifndef WHISTLE_DOMAIN_VOTES_H
#define WHISTLE_DOMAIN_VOTES_H

#include <stdint.h>

#include "domain/model.h"

/*
 * Fan Verdict arithmetic and the spec's display conventions (api-v1.md, Votes rules 4):
 * counts first; no percentages below 20 ballots in the displayed population; no rooting
 * breakdown below 50 total votes; a rooting subgroup hidden below 10 ballots, shown as
 * counts at 10-19 and with percentages from 20.
 */
#define VOTES_MIN_FOR_PERCENTAGES      20
#define VOTES_MIN_FOR_ROOTING          50
#define VOTES_MIN_SUBGROUP_COUNTS      10
#define VOTES_MIN_SUBGROUP_PERCENTAGES 20

enum vote_display {
    VOTE_DISPLAY_HIDDEN,      /* show nothing for this population */
    VOTE_DISPLAY_COUNTS,      /* counts only */
    VOTE_DISPLAY_PERCENTAGES, /* counts and percentages */
};

/* The rooting index of name ("home", …, "unspecified"); -1 when unknown. NULL is unspecified. */
int rooting_from_name(const char *name);

int64_t choices_total(const struct choices *c);
/* The count of one choice (enum choice) in c. */
int64_t choices_count(const struct choices *c, enum choice k);
struct choices votes_overall(const struct votes *v);

/* 100 * part / total, 0 when total is 0 (raw arithmetic, unrounded). */
double votes_percentage(int64_t part, int64_t total);

/* How the overall results of `total` ballots are shown: counts always, percentages at 20+. */
enum vote_display votes_overall_display(int64_t total);
/* Whether any rooting breakdown is shown for an incident with `total` ballots (50+). */
int votes_rooting_shown(int64_t total);
/* How one rooting subgroup of `n` ballots is shown, given it is shown at all. */
enum vote_display votes_subgroup_display(int64_t n);

#endif
