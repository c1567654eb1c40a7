/* whistle: subcommand dispatch. */
#include <sodium.h>
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "cli/cli.h"

/* build/gen/version.c (Makefile: git describe, else WHISTLE_VERSION_BASE) */
extern const char whistle_version[];

static int version(void)
{
    printf("whistle %s\n", whistle_version);
    return 0;
}

static const struct {
    const char *name;
    cli_main_fn *run;
    const char *help;
} commands[] = {
    {"serve", cli_serve, "serve the API (HTTP)"},
    {"migrate", cli_migrate, "apply database migrations"},
    {"cache", cli_cache, "flush every node's response cache (after a hand edit)"},
    {"import", cli_import, "import teams, games and incidents from a JSON document"},
    {"export", cli_export, "export everything as an import document"},
    {"incident", cli_incident, "withdraw, merge, set-question, set-status, add/remove-source"},
    {"key", cli_key, "create, list, revoke agent keys"},
    {"account", cli_account, "ban, unban; grant, revoke a role; claim; totp-off"},
    {"comment", cli_comment, "moderation queues, approve, reject, feature; the word list"},
    {"scout-key", cli_scout_key,
     "create, list, revoke, set-budget, disable, enable scout credentials"},
    {"fetch", cli_fetch, "fetch a URL as lead research would (SSRF rules)"},
    {"candidate", cli_candidate, "list, show, publish, reject researched leads"},
    {"audit", cli_audit, "list the audit log of editorial, account and credential actions"},
    {"lead", cli_lead, "list leads, show one with its research audit trail"},
    {"games", cli_games, "sync games from a provider (nflverse, CollegeFootballData)"},
    {"worker", cli_worker, "run the background worker alone (research, outbox, housekeeping)"},
    {"demo-sources", cli_demo_sources, "serve sample articles on loopback for the README tour"},
};

static int usage(FILE *to)
{
    fputs("usage: whistle COMMAND [OPTIONS]\n\ncommands:\n", to);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(to, "  %-12s %s\n", commands[i].name, commands[i].help);
    fputs("  version      print the version (also --version)\n"
          "\nEvery command takes --db PATH (or WHISTLE_DB; default ./whistle.db).\n"
          "whistle serve --help and whistle worker --help list their options.\n",
          to);
    return to == stdout ? 0 : 2;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage(stderr);
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0)
        return usage(stdout);
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0)
        return version();
    if (sodium_init() < 0) {
        fputs("whistle: cannot initialise libsodium\n", stderr);
        return 1;
    }
    /* every command that writes keeps the incidents' pre-rendered fragments current */
    store_after_content_commit(api_fragments_after_commit);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "whistle: unknown command %s\n", argv[1]);
    return usage(stderr);
}
