#ifndef WHISTLE_UTIL_LOG_H
#define WHISTLE_UTIL_LOG_H

/*
 * Leveled logging to stderr, one line per call: "<level> <module>: message". Never pass a
 * secret, token, password or cookie value (ARCHITECTURE.md security rules).
 */
enum log_level { LOG_DEBUG, LOG_INFO, LOG_WARN, LOG_ERROR };

void log_set_level(enum log_level min);
void log_msg(enum log_level level, const char *module, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define log_info(mod, ...)  log_msg(LOG_INFO, mod, __VA_ARGS__)
#define log_warn(mod, ...)  log_msg(LOG_WARN, mod, __VA_ARGS__)
#define log_error(mod, ...) log_msg(LOG_ERROR, mod, __VA_ARGS__)

#endif
