#ifndef WHISTLE_DOMAIN_VOCAB_H
#define WHISTLE_DOMAIN_VOCAB_H

#include <stddef.h>

#include "util/strlist.h" /* strlist_join(): "a, b, c" for messages */

/*
 * The vocabulary: every enumerated value of the spec (../shared/spec/api-v1.md) and the
 * schema, declared once. Each list is an X-macro, X(CONSTANT, "name", "Label", ...), in the
 * spec's order (error messages list the values in that order). From each list come
 *
 *   - an enum of indexes (CATEGORY_PENALTY, …, CATEGORY_COUNT);
 *   - a NULL-terminated name table (category_names[CATEGORY_COUNT + 1]) that the query
 *     parameter tables, import validation and the page filters use as is;
 *   - a label table (category_labels[CATEGORY_COUNT]): the words people read on the pages
 *     ("No call" for no_call, "Official statement" for official_statement). A value and its
 *     words sit on one line, so they cannot drift; vocab_label() looks one up by name;
 *   - subsets picked by a 0/1 column (lead_category_names: the categories an agent lead may
 *     name), also NULL-terminated.
 *
 * vocab_find() maps a name back to its index; strlist_join() lists a table for messages.
 * tests/unit/test_domain_vocab.c checks every list against the OpenAPI enums (src/api/openapi.json)
 * and the migrations' CHECK constraints, so adding a value here without there (or the reverse)
 * fails `make test`.
 */

/* Incident categories. lead: an agent lead may name it (AgentLead.category). words: how a
 * researched incident's title names it ("Disputed penalty call: …"). */
#define VOCAB_CATEGORIES(X)                                                                        \
    X(CATEGORY_PENALTY, "penalty", "Penalty", 1, "penalty call")                                   \
    X(CATEGORY_REPLAY, "replay", "Replay review", 1, "replay review")                              \
    X(CATEGORY_CLOCK, "clock", "Clock", 1, "clock decision")                                       \
    X(CATEGORY_SPOT, "spot", "Ball spot", 1, "ball spot")                                          \
    X(CATEGORY_TARGETING, "targeting", "Targeting", 1, "targeting call")                           \
    X(CATEGORY_OTHER, "other", "Other", 1, "officiating decision")                                 \
    X(CATEGORY_NO_CALL, "no_call", "No call", 0, "no-call")                                        \
    X(CATEGORY_CATCH, "catch", "Catch", 0, "catch ruling")

/* Incident status (its maturity, api-v1.md "Incident status"). words: what it means, for
 * people (the incident page). */
#define VOCAB_MATURITIES(X)                                                                        \
    X(MATURITY_DEVELOPING, "developing", "Developing",                                             \
      "Developing: this describes what people are discussing. It is not a verdict; there may be "  \
      "no independent article or final ruling yet.")                                               \
    X(MATURITY_CORROBORATED, "corroborated", "Corroborated",                                       \
      "Corroborated: supported by independent or structured evidence.")                            \
    X(MATURITY_EXPLAINED, "explained", "Explained",                                                \
      "Explained: an authoritative explanation exists.")                                           \
    X(MATURITY_RESOLVED, "resolved", "Resolved", "Resolved: a legacy editorial status.")

/* How an incident was discovered (Incident.origin_kind). */
#define VOCAB_ORIGINS(X)                                                                           \
    X(ORIGIN_HUMAN, "human", "Found by people")                                                    \
    X(ORIGIN_AGENT, "agent", "Found by an agent")                                                  \
    X(ORIGIN_MIGRATION, "migration", "Migrated")

/* Game status. filter: accepted by GET /games?status= (the spec's five). unplayed: the game
 * cannot have had the play yet (lead research refuses leads on it). */
#define VOCAB_GAME_STATUSES(X)                                                                     \
    X(GAME_STATUS_UPCOMING, "upcoming", "Upcoming", 1, 1)                                          \
    X(GAME_STATUS_LIVE, "live", "Live", 1, 0)                                                      \
    X(GAME_STATUS_FINAL, "final", "Final", 1, 0)                                                   \
    X(GAME_STATUS_POSTPONED, "postponed", "Postponed", 1, 1)                                       \
    X(GAME_STATUS_DELAYED, "delayed", "Delayed", 0, 0)                                             \
    X(GAME_STATUS_CANCELED, "canceled", "Canceled", 1, 1)                                          \
    X(GAME_STATUS_UNKNOWN, "unknown", "Status unknown", 0, 0)

/* Leagues. periods: periods of regulation play (four quarters in both); a later period is
 * overtime (vocab_play_time). */
#define VOCAB_LEAGUES(X)                                                                           \
    X(LEAGUE_COLLEGE, "college", "College", 4)                                                     \
    X(LEAGUE_NFL, "nfl", "NFL", 4)

/* Game.seasonType; a game imported without one is regular. rank: where the games index
 * lists a season's games of this type (postseason first, then regular, then preseason). */
#define VOCAB_SEASON_TYPES(X)                                                                      \
    X(SEASON_TYPE_PRESEASON, "preseason", "Preseason", 2)                                          \
    X(SEASON_TYPE_REGULAR, "regular", "Regular season", 1)                                         \
    X(SEASON_TYPE_POSTSEASON, "postseason", "Postseason", 0)                                       \
    X(SEASON_TYPE_UNKNOWN, "unknown", "Season type unknown", 3)

/* Source.source_kind. */
#define VOCAB_SOURCE_KINDS(X)                                                                      \
    X(SOURCE_KIND_REPORT, "report", "Report")                                                      \
    X(SOURCE_KIND_VIDEO, "video", "Video")                                                         \
    X(SOURCE_KIND_IMAGE, "image", "Image")                                                         \
    X(SOURCE_KIND_OFFICIAL_STATEMENT, "official_statement", "Official statement")                  \
    X(SOURCE_KIND_RULE, "rule", "Rule")                                                            \
    X(SOURCE_KIND_OTHER, "other", "Other")

/* Agent lead status (LeadStatus.status, leads.status). */
#define VOCAB_LEAD_STATUSES(X)                                                                     \
    X(LEAD_STATUS_PENDING, "pending", "Pending")                                                   \
    X(LEAD_STATUS_RUNNING, "running", "Being researched")                                          \
    X(LEAD_STATUS_REJECTED, "rejected", "Rejected")                                                \
    X(LEAD_STATUS_PUBLISHED, "published", "Published")                                             \
    X(LEAD_STATUS_DUPLICATE, "duplicate", "Duplicate")                                             \
    X(LEAD_STATUS_FAILED, "failed", "Failed")

/* Rooting groups of the vote tallies. ballot: a ballot may declare it (Ballot.rooting);
 * unspecified is the tally group of ballots that declared none. */
#define VOCAB_ROOTINGS(X)                                                                          \
    X(ROOTING_HOME, "home", "Home fans", 1)                                                        \
    X(ROOTING_AWAY, "away", "Away fans", 1)                                                        \
    X(ROOTING_NEUTRAL, "neutral", "Neutral", 1)                                                    \
    X(ROOTING_UNDISCLOSED, "undisclosed", "Prefer not to say", 1)                                  \
    X(ROOTING_UNSPECIFIED, "unspecified", "Not declared", 0)

/* Ballot.choice: correct = option A, incorrect = option B (pages show the question's own
 * labels instead; these words are for where no question is at hand). */
#define VOCAB_CHOICES(X)                                                                           \
    X(CHOICE_CORRECT, "correct", "Option A")                                                       \
    X(CHOICE_INCORRECT, "incorrect", "Option B")                                                   \
    X(CHOICE_UNSURE, "unsure", "Unsure")

/* Who may see an incident (incidents.visibility): published (public), withdrawn (404),
 * merged (308 to its survivor). import: an import document may set it (merged comes from
 * duplicate_of instead). */
#define VOCAB_VISIBILITIES(X)                                                                      \
    X(VISIBILITY_PUBLISHED, "published", "Published", 1)                                           \
    X(VISIBILITY_WITHDRAWN, "withdrawn", "Withdrawn", 1)                                           \
    X(VISIBILITY_MERGED, "merged", "Merged into another debate", 0)

/* The enums of indexes. */
#define VOCAB_ENUM_ENTRY(id, ...) id,
enum category { VOCAB_CATEGORIES(VOCAB_ENUM_ENTRY) CATEGORY_COUNT };
enum maturity { VOCAB_MATURITIES(VOCAB_ENUM_ENTRY) MATURITY_COUNT };
enum origin { VOCAB_ORIGINS(VOCAB_ENUM_ENTRY) ORIGIN_COUNT };
enum game_status { VOCAB_GAME_STATUSES(VOCAB_ENUM_ENTRY) GAME_STATUS_COUNT };
enum league { VOCAB_LEAGUES(VOCAB_ENUM_ENTRY) LEAGUE_COUNT };
enum season_type { VOCAB_SEASON_TYPES(VOCAB_ENUM_ENTRY) SEASON_TYPE_COUNT };
enum source_kind { VOCAB_SOURCE_KINDS(VOCAB_ENUM_ENTRY) SOURCE_KIND_COUNT };
enum lead_status_code { VOCAB_LEAD_STATUSES(VOCAB_ENUM_ENTRY) LEAD_STATUS_COUNT };
enum rooting { VOCAB_ROOTINGS(VOCAB_ENUM_ENTRY) ROOTING_COUNT };
enum choice { VOCAB_CHOICES(VOCAB_ENUM_ENTRY) CHOICE_COUNT };
enum visibility { VOCAB_VISIBILITIES(VOCAB_ENUM_ENTRY) VISIBILITY_COUNT };

/* The name tables, NULL-terminated, indexed by the enums above. */
extern const char *const category_names[CATEGORY_COUNT + 1];
extern const char *const maturity_names[MATURITY_COUNT + 1];
extern const char *const origin_names[ORIGIN_COUNT + 1];
extern const char *const game_status_names[GAME_STATUS_COUNT + 1];
extern const char *const league_names[LEAGUE_COUNT + 1];
extern const char *const season_type_names[SEASON_TYPE_COUNT + 1];
extern const char *const source_kind_names[SOURCE_KIND_COUNT + 1];
extern const char *const lead_status_names[LEAD_STATUS_COUNT + 1];
extern const char *const rooting_names[ROOTING_COUNT + 1];
extern const char *const choice_names[CHOICE_COUNT + 1];
extern const char *const visibility_names[VISIBILITY_COUNT + 1];

/* The words people read, indexed by the same enums (never NULL). */
extern const char *const category_labels[CATEGORY_COUNT];
extern const char *const maturity_labels[MATURITY_COUNT];
/* What each maturity means, for people (the words column of VOCAB_MATURITIES). */
extern const char *const maturity_words[MATURITY_COUNT];
extern const char *const origin_labels[ORIGIN_COUNT];
extern const char *const game_status_labels[GAME_STATUS_COUNT];
extern const char *const league_labels[LEAGUE_COUNT];
extern const char *const season_type_labels[SEASON_TYPE_COUNT];
extern const char *const source_kind_labels[SOURCE_KIND_COUNT];
extern const char *const lead_status_labels[LEAD_STATUS_COUNT];
extern const char *const rooting_labels[ROOTING_COUNT];
extern const char *const choice_labels[CHOICE_COUNT];
extern const char *const visibility_labels[VISIBILITY_COUNT];

/* Extra columns, indexed by the same enums. */
extern const char *const category_words[CATEGORY_COUNT];
extern const int league_periods[LEAGUE_COUNT];
extern const int season_type_rank[SEASON_TYPE_COUNT];

/* Subsets, NULL-terminated, in the same order (not indexed by the enums). */
extern const char *const lead_category_names[];        /* AgentLead.category */
extern const char *const game_status_filter_names[];   /* GET /games?status= */
extern const char *const unplayed_game_status_names[]; /* no play can have happened yet */
extern const char *const ballot_rooting_names[];       /* Ballot.rooting */
extern const char *const import_visibility_names[];    /* an import document's visibility */

/* The index of name in a NULL-terminated table (one above, or any such list); -1 when name
 * is NULL or not in it. Comparison is exact (case-sensitive). */
int vocab_find(const char *const *names, const char *name);

/* The label of name in a name table and its label table (category_names, category_labels);
 * name itself when it is not in the table (a value newer than this build), "" for NULL.
 * The result is static or name: print it escaped. */
const char *vocab_label(const char *const *names, const char *const *labels, const char *name);

/* When a play happened, in the words of the league's broadcasts: "Q2 2:18", "Q4", "OT 9:41",
 * "2OT" (a period past regulation is overtime; league NULL or unknown counts four quarters);
 * just the clock when period is MODEL_NULL-like (< 1), "" when both are unknown. clock may be
 * NULL. Writes at most n bytes (n >= 1) to out, always NUL-terminated. */
void vocab_play_time(char *out, size_t n, const char *league, long long period, const char *clock);

#endif
