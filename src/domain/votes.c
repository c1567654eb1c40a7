#include "domain/votes.h"

#include <string.h>

int rooting_from_name(const char *name)
{
    if (!name)
        return ROOTING_UNSPECIFIED;
    return vocab_find(rooting_names, name);
}

int64_t choices_total(const struct choices *c)
{
    return c->correct + c->incorrect + c->unsure;
}

int64_t choices_count(const struct choices *c, enum choice k)
{
    return k == CHOICE_CORRECT ? c->correct : k == CHOICE_INCORRECT ? c->incorrect : c->unsure;
}

struct choices votes_overall(const struct votes *v)
{
    struct choices t = {0, 0, 0};
    for (int i = 0; i < ROOTING_COUNT; i++) {
        t.correct += v->by_rooting[i].correct;
        t.incorrect += v->by_rooting[i].incorrect;
        t.unsure += v->by_rooting[i].unsure;
    }
    return t;
}

double votes_percentage(int64_t part, int64_t total)
{
    return total > 0 ? 100.0 * (double)part / (double)total : 0.0;
}

enum vote_display votes_overall_display(int64_t total)
{
    return total >= VOTES_MIN_FOR_PERCENTAGES ? VOTE_DISPLAY_PERCENTAGES : VOTE_DISPLAY_COUNTS;
}

int votes_rooting_shown(int64_t total)
{
    return total >= VOTES_MIN_FOR_ROOTING;
}

enum vote_display votes_subgroup_display(int64_t n)
{
    if (n >= VOTES_MIN_SUBGROUP_PERCENTAGES)
        return VOTE_DISPLAY_PERCENTAGES;
    if (n >= VOTES_MIN_SUBGROUP_COUNTS)
        return VOTE_DISPLAY_COUNTS;
    return VOTE_DISPLAY_HIDDEN;
}
