#include "domain/vocab.h"

#include <stdio.h>
#include <string.h>

/* Every table below is generated from the lists in vocab.h: nothing here names a value. */
#define NAME(id, name, ...) [id] = name,
/* A subset keeps the entries whose flag column is the literal 1. */
#define PICK_1(name) name,
#define PICK_0(name)
#define PICK(flag, name) PICK_##flag(name)

const char *const category_names[CATEGORY_COUNT + 1] = {VOCAB_CATEGORIES(NAME)};
const char *const maturity_names[MATURITY_COUNT + 1] = {VOCAB_MATURITIES(NAME)};
const char *const origin_names[ORIGIN_COUNT + 1] = {VOCAB_ORIGINS(NAME)};
const char *const game_status_names[GAME_STATUS_COUNT + 1] = {VOCAB_GAME_STATUSES(NAME)};
const char *const league_names[LEAGUE_COUNT + 1] = {VOCAB_LEAGUES(NAME)};
const char *const season_type_names[SEASON_TYPE_COUNT + 1] = {VOCAB_SEASON_TYPES(NAME)};
const char *const source_kind_names[SOURCE_KIND_COUNT + 1] = {VOCAB_SOURCE_KINDS(NAME)};
const char *const lead_status_names[LEAD_STATUS_COUNT + 1] = {VOCAB_LEAD_STATUSES(NAME)};
const char *const rooting_names[ROOTING_COUNT + 1] = {VOCAB_ROOTINGS(NAME)};
const char *const choice_names[CHOICE_COUNT + 1] = {VOCAB_CHOICES(NAME)};
const char *const visibility_names[VISIBILITY_COUNT + 1] = {VOCAB_VISIBILITIES(NAME)};

#define LABEL(id, name, label, ...) [id] = label,
const char *const category_labels[CATEGORY_COUNT] = {VOCAB_CATEGORIES(LABEL)};
const char *const maturity_labels[MATURITY_COUNT] = {VOCAB_MATURITIES(LABEL)};
#define WORDS(id, name, label, words) [id] = words,
const char *const maturity_words[MATURITY_COUNT] = {VOCAB_MATURITIES(WORDS)};
const char *const origin_labels[ORIGIN_COUNT] = {VOCAB_ORIGINS(LABEL)};
const char *const game_status_labels[GAME_STATUS_COUNT] = {VOCAB_GAME_STATUSES(LABEL)};
const char *const league_labels[LEAGUE_COUNT] = {VOCAB_LEAGUES(LABEL)};
const char *const season_type_labels[SEASON_TYPE_COUNT] = {VOCAB_SEASON_TYPES(LABEL)};
const char *const source_kind_labels[SOURCE_KIND_COUNT] = {VOCAB_SOURCE_KINDS(LABEL)};
const char *const lead_status_labels[LEAD_STATUS_COUNT] = {VOCAB_LEAD_STATUSES(LABEL)};
const char *const rooting_labels[ROOTING_COUNT] = {VOCAB_ROOTINGS(LABEL)};
const char *const choice_labels[CHOICE_COUNT] = {VOCAB_CHOICES(LABEL)};
const char *const visibility_labels[VISIBILITY_COUNT] = {VOCAB_VISIBILITIES(LABEL)};

#define CATEGORY_WORDS(id, name, label, lead, words) [id] = words,
#define LEAGUE_PERIODS(id, name, label, periods)     [id] = periods,
#define SEASON_TYPE_RANK(id, name, label, rank)      [id] = rank,
const char *const category_words[CATEGORY_COUNT] = {VOCAB_CATEGORIES(CATEGORY_WORDS)};
const int league_periods[LEAGUE_COUNT] = {VOCAB_LEAGUES(LEAGUE_PERIODS)};
const int season_type_rank[SEASON_TYPE_COUNT] = {VOCAB_SEASON_TYPES(SEASON_TYPE_RANK)};

#define LEAD_CATEGORY(id, name, label, lead, words)        PICK(lead, name)
#define FILTER_STATUS(id, name, label, filter, unplayed)   PICK(filter, name)
#define UNPLAYED_STATUS(id, name, label, filter, unplayed) PICK(unplayed, name)
#define BALLOT_ROOTING(id, name, label, ballot)            PICK(ballot, name)
#define IMPORT_VISIBILITY(id, name, label, import)         PICK(import, name)
const char *const lead_category_names[] = {VOCAB_CATEGORIES(LEAD_CATEGORY) NULL};
const char *const game_status_filter_names[] = {VOCAB_GAME_STATUSES(FILTER_STATUS) NULL};
const char *const unplayed_game_status_names[] = {VOCAB_GAME_STATUSES(UNPLAYED_STATUS) NULL};
const char *const ballot_rooting_names[] = {VOCAB_ROOTINGS(BALLOT_ROOTING) NULL};
const char *const import_visibility_names[] = {VOCAB_VISIBILITIES(IMPORT_VISIBILITY) NULL};

int vocab_find(const char *const *names, const char *name)
{
    if (!name)
        return -1;
    for (int i = 0; names[i]; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

const char *vocab_label(const char *const *names, const char *const *labels, const char *name)
{
    int k = vocab_find(names, name);
    return k >= 0 ? labels[k] : name ? name : "";
}

void vocab_play_time(char *out, size_t n, const char *league, long long period, const char *clock)
{
    int l = vocab_find(league_names, league);
    long long regulation = league_periods[l >= 0 ? l : LEAGUE_COLLEGE];
    const char *sep = clock && clock[0] ? " " : "";
    if (!clock)
        clock = "";
    if (period < 1)
        snprintf(out, n, "%s", clock);
    else if (period <= regulation)
        snprintf(out, n, "Q%lld%s%s", period, sep, clock);
    else if (period == regulation + 1)
        snprintf(out, n, "OT%s%s", sep, clock);
    else
        snprintf(out, n, "%lldOT%s%s", period - regulation, sep, clock);
}
