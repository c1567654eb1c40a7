/*
 * whistle worker: the background worker alone (lead research, email outbox, housekeeping).
 * Its options, shared with `whistle serve` for its worker thread, are cli/settings.c.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/settings.h"
#include "research/fetch.h"
#include "store/store.h"
#include "util/jsonw.h"
#include "util/log.h"
#include "worker/worker.h"

int cli_worker(int argc, char **argv)
{
    struct cli_settings st;
    int prc = cli_settings_parse(CLI_WORKER, argc, argv, &st);
    if (prc != CLI_RUN)
        return prc;
    struct worker_config cfg = st.worker;
    bool once = st.once, json = st.json;
    cfg.base_url = st.base_url ? st.base_url : "http://127.0.0.1:8080";
    cfg.db = st.db;
    /* migrations first, as serve does: a worker never runs on a schema it does not know */
    struct store *s = cli_open_store(cfg.db);
    if (!s)
        return CLI_REFUSED;
    store_close(s);
    /* the lanes open and close connections on their threads (store.h store_hold_file) */
    char err[512];
    if (store_hold_file(cfg.db, err, sizeof err) < 0)
        return cli_refuse("%s", err);
    /* its commits wait the lease as the nodes' do (store.h store_lease_setup) */
    store_lease_setup(cfg.db, st.version_lease_us, false);
    fetch_global_init();
    if (once) {
        int n = worker_drain(&cfg);
        if (n < 0)
            return cli_refuse("the worker stopped on a database error (%d)", n);
        if (json)
            cli_printf_json("{\"units\":%d}", n);
        else
            printf("%d units of work done\n", n);
        return CLI_OK;
    }
    /* SIGINT/SIGTERM are taken by sigwait(); the worker thread inherits the blocked mask */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    if (worker_thread_start(&cfg) < 0)
        return cli_refuse("cannot start the worker thread");
    int sig = 0;
    sigwait(&sigs, &sig);
    log_info("worker", "signal %d: finishing the current unit of work", sig);
    worker_thread_stop();
    return CLI_OK;
}
