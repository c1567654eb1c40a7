#include "web/results.h"

#include "domain/votes.h"
#include "util/html.h"

static void pct(struct buf *b, int64_t part, int64_t total)
{
    double p = votes_percentage(part, total);
    html_printf(b, " (<span class=\"pct\">%.1f%%</span>)", p);
}

/* The bar of one answer: a <meter> (no inline style, which the pages' CSP forbids) whose
 * length is the percentage already printed beside it in words, so it is shown only where
 * percentages are (20 ballots and more, api-v1.md Votes rule 4) and says nothing new to a
 * screen reader (its label repeats the text). */
static void bar(struct buf *b, const char *label, int64_t part, int64_t total)
{
    double p = votes_percentage(part, total);
    html_printf(b, "<meter class=\"bar\" min=\"0\" max=\"100\" value=\"%.1f\" aria-label=\"", p);
    html_attr(b, label);
    html_printf(b, ": %.1f%% of %lld votes\">%.1f%%</meter>", p, (long long)total, p);
}

void web_results(struct buf *b, const struct question *q, const struct votes *v)
{
    struct choices all = votes_overall(v);
    int64_t total = choices_total(&all);
    const char *labels[CHOICE_COUNT] = {[CHOICE_CORRECT] = q->a_label,
                                        [CHOICE_INCORRECT] = q->b_label,
                                        [CHOICE_UNSURE] = q->unsure_label};
    bool show_pct = votes_overall_display(total) == VOTE_DISPLAY_PERCENTAGES;

    html_printf(b,
                "<div id=\"results\"><p>Votes: <span id=\"vote-total\">%lld</span></p><ul "
                "class=\"results\">",
                (long long)total);
    for (int k = 0; k < CHOICE_COUNT; k++) {
        html_fmt(b, "<li data-choice=\"%r\">%t: <span class=\"count\">%lld</span>", choice_names[k],
                 labels[k], (long long)choices_count(&all, k));
        if (show_pct) {
            pct(b, choices_count(&all, k), total);
            bar(b, labels[k], choices_count(&all, k), total);
        }
        html_raw(b, "</li>");
    }
    html_raw(b, "</ul>");
    if (!show_pct)
        html_raw(b, "<p class=\"note\">Percentages appear from 20 votes.</p>");
    if (votes_rooting_shown(total)) {
        html_fmt(b,
                 "<section id=\"rooting\"><h3>By self-declared rooting interest</h3><table><tr>"
                 "<th>Group</th><th>%t</th><th>%t</th><th>%t</th></tr>",
                 q->a_label, q->b_label, q->unsure_label);
        for (int r = 0; r < ROOTING_COUNT; r++) {
            const struct choices *c = &v->by_rooting[r];
            int64_t n = choices_total(c);
            enum vote_display d = votes_subgroup_display(n);
            if (d == VOTE_DISPLAY_HIDDEN)
                continue;
            html_printf(b, "<tr data-group=\"%s\"><th>%s (%lld)</th>", rooting_names[r],
                        rooting_labels[r], (long long)n);
            for (int k = 0; k < CHOICE_COUNT; k++) {
                html_printf(b, "<td><span class=\"count\">%lld</span>",
                            (long long)choices_count(c, k));
                if (d == VOTE_DISPLAY_PERCENTAGES)
                    pct(b, choices_count(c, k), n);
                html_raw(b, "</td>");
            }
            html_raw(b, "</tr>");
        }
        html_raw(b, "</table><p class=\"note\">Groups under 10 votes are not shown; "
                    "percentages appear from 20.</p></section>");
    } else {
        html_raw(b, "<p class=\"note\">A breakdown by rooting interest appears from 50 votes."
                    "</p>");
    }
    html_raw(b, "</div>");
}
