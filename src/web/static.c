/* The pages' stylesheet and their small voting script (CSP allows only these). */
#include "web/web.h"

static const char css[] =
    ":root{--ink:#1b1f24;--muted:#5b6470;--line:#d8dde3;--accent:#0b5cad}"
    "*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,sans-serif;color:var(--ink)}"
    "header{display:flex;gap:1rem;align-items:center;justify-content:space-between;"
    "padding:.6rem 1rem;border-bottom:1px solid var(--line)}"
    /* the site nav stays on one line: below the brand on a phone, scrolling sideways inside
     * itself rather than wrapping if a translation ever makes it too long */
    "header nav{display:flex;gap:.8rem;white-space:nowrap;overflow-x:auto;min-width:0}"
    "@media (max-width:40rem){header{flex-direction:column;align-items:flex-start;gap:.2rem}"
    "header nav{gap:.65rem;font-size:.9rem;max-width:100%}}"
    ".brand{font-weight:700;text-decoration:none;color:var(--ink)}"
    "main{max-width:46rem;margin:0 auto;padding:1rem}a{color:var(--accent)}"
    "h1{font-size:1.5rem;line-height:1.25}.matchup,.meta,.note,.kind{color:var(--muted)}"
    ".maturity{background:#f3f6f9;border-left:4px solid var(--accent);padding:.5rem .8rem}"
    ".facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}"
    ".facts dt{font-weight:600}.facts dd{margin:0}"
    "#vote-form{display:flex;flex-wrap:wrap;gap:.5rem;margin:.8rem 0}"
    "#vote-form button{flex:1 1 8rem;padding:.7rem;font:inherit;border:1px solid var(--accent);"
    "background:#fff;color:var(--accent);border-radius:.4rem;cursor:pointer}"
    "#vote-form button[aria-pressed=true]{background:var(--accent);color:#fff}"
    "#vote-form .rooting{flex:1 1 100%}.rooting select{margin-left:.4rem;font:inherit}"
    ".account-form{display:grid;gap:.7rem;max-width:26rem;margin:1rem 0}"
    ".account-form label{display:grid;gap:.2rem}.account-form input{font:inherit;padding:.5rem;"
    "border:1px solid var(--line);border-radius:.3rem;width:100%}"
    "button{font:inherit;padding:.5rem .9rem;border:1px solid var(--accent);"
    "background:var(--accent);color:#fff;border-radius:.4rem;cursor:pointer}"
    ".inline-form{display:inline;margin:0}.inline-form button{padding:.2rem .6rem}"
    ".error{color:#a4000f;font-weight:600}.notice{background:#eef7ee;border-left:4px solid #2d7a2d;"
    "padding:.5rem .8rem}.secret{display:block;overflow-wrap:anywhere;background:#f3f6f9;"
    "padding:.6rem;border-radius:.3rem;font-size:.95rem}pre{overflow-x:auto;background:#f3f6f9;"
    "padding:.6rem;border-radius:.3rem}.keys td,.keys th{font-size:.9rem;vertical-align:top}"
    /* code samples wrap instead of running off a phone's screen */
    "pre.sample{white-space:pre-wrap;overflow-wrap:anywhere}"
    "a.button{display:inline-block;padding:.2rem .6rem;border:1px solid var(--accent);"
    "border-radius:.4rem;text-decoration:none;background:#fff;white-space:nowrap}"
    /* on a phone the key table becomes one card per key, each cell named by its data-label */
    "@media (max-width:40rem){.keys thead{display:none}.keys,.keys tbody,.keys tr,.keys td"
    "{display:block;width:100%}.keys tr{border:1px solid var(--line);border-radius:.4rem;"
    "padding:.4rem .6rem;margin:.6rem 0}.keys td{border:0;padding:.15rem 0}"
    ".keys td[data-label]::before{content:attr(data-label) \": \";font-weight:600}}"
    ".table-wrap{overflow-x:auto}"
    ".results{list-style:none;padding:0}.results li{padding:.2rem 0}"
    /* the Fan Verdict bars: a <meter> per answer, its length the printed percentage */
    ".results meter{display:block;width:100%;height:.9rem;margin-top:.15rem;"
    "-webkit-appearance:none;appearance:none;background:#e8ecf0;border:0;border-radius:.3rem}"
    ".results meter::-webkit-meter-bar{background:#e8ecf0;border:0;border-radius:.3rem;"
    "height:.9rem}.results meter::-webkit-meter-optimum-value{background:var(--accent);"
    "border-radius:.3rem}.results meter::-moz-meter-bar{background:var(--accent);"
    "border-radius:.3rem}"
    /* the sample-data banner, paging, the games index */
    ".sample-banner{background:#fff6e5;border:2px solid #b86e00;border-radius:.4rem;"
    "padding:.5rem .8rem;margin:0 0 1rem}.pager{display:flex;flex-wrap:wrap;gap:.4rem 1.2rem;"
    "align-items:baseline;margin:1.2rem 0}.page-number{color:var(--muted)}"
    ".games{list-style:none;padding:0}.games li{margin:.35rem 0}.season{margin-top:1.6rem}"
    ".week h3{font-size:1.05rem;margin:1rem 0 .3rem}"
    "table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.3rem;"
    "border-bottom:1px solid var(--line)}.reminder{font-style:italic}"
    ".incidents li{margin:.5rem 0}.filters{margin:.5rem 0 1rem}"
    "footer{max-width:46rem;margin:2rem auto;padding:0 1rem;color:var(--muted);font-size:.9rem}"
    /* the discussion and the moderation queues (docs/comments.md) */
    ".comments,.replies,.queue{list-style:none;padding:0}.replies{margin-left:1.2rem;"
    "border-left:2px solid var(--line);padding-left:.8rem}.comment,.review{margin:.9rem 0}"
    ".byline{margin:0;color:var(--muted);font-size:.9rem}.author{color:var(--ink)}"
    ".badge,.featured{background:var(--accent);color:#fff;border-radius:.3rem;padding:0 .35rem;"
    "font-size:.8rem}.comment-body{overflow-wrap:anywhere}.placeholder,.pending-note"
    "{color:var(--muted);font-style:italic}.comment-form{display:grid;gap:.5rem;margin:.6rem 0}"
    ".comment-form label{display:grid;gap:.2rem}textarea{font:inherit;width:100%;padding:.5rem;"
    "border:1px solid var(--line);border-radius:.3rem}.comment-actions{display:flex;"
    "flex-wrap:wrap;gap:.6rem;align-items:center;font-size:.9rem}summary{cursor:pointer;"
    "color:var(--accent)}.review{border-bottom:1px solid var(--line);padding-bottom:.8rem}"
    ".decisions{display:flex;flex-wrap:wrap;gap:.4rem}.decision input{font:inherit;"
    "padding:.3rem;max-width:12rem}.queues a,.queues strong{margin-right:.8rem}"
    /* the editorial desk (docs/desk.md) */
    ".desk-nav{display:flex;flex-wrap:wrap;gap:.3rem .9rem;margin-bottom:.6rem}"
    ".desk-form,.filter{display:grid;gap:.6rem;margin:.8rem 0 1.2rem}.desk-form label,"
    ".filter label{display:grid;gap:.2rem}.desk-form input,.desk-form select,.filter input,"
    ".filter select{font:inherit;padding:.45rem;border:1px solid var(--line);"
    "border-radius:.3rem;width:100%;box-sizing:border-box}textarea{box-sizing:border-box}"
    ".desk-form input[type=checkbox]{width:auto;margin-right:.4rem}.desk-form label:has("
    "input[type=checkbox]){display:block}.desk-form fieldset{display:grid;gap:.6rem;"
    "border:1px solid var(--line);border-radius:.3rem;min-width:0}.lead-text,.facts dd,"
    "code{overflow-wrap:anywhere}.audit td,.fetches td{font-size:.85rem;vertical-align:top}"
    ".leads,.accounts,.sources,.events{padding-left:1.2rem}.leads li{margin:.7rem 0}"
    ".warning{background:#fff6e5;border-left:4px solid #b86e00;padding:.5rem .8rem}";

/* Progressive enhancement: without JavaScript the form posts and the server redirects
 * back; with it, the ballot goes as JSON and the results are replaced in place. */
static const char js[] =
    "(function(){var f=document.getElementById('vote-form');if(!f||!window.fetch)return;"
    "f.addEventListener('click',function(e){var b=e.target.closest('button[name=choice]');"
    "if(!b)return;e.preventDefault();"
    "var body={choice:b.value,question_version:parseInt(f.elements.question_version.value,10),"
    "csrf:f.elements.csrf.value};if(f.elements.rooting)body.rooting=f.elements.rooting.value||null;"
    "fetch(f.action,{method:'POST',credentials:'same-origin',headers:{'Content-Type':"
    "'application/json','Accept':'application/json'},body:JSON.stringify(body)})"
    ".then(function(r){if(!r.ok)throw r;return r.json();}).then(function(j){"
    "var r=document.getElementById('results');if(r)r.outerHTML=j.data.results_html;"
    "f.querySelectorAll('button[name=choice]').forEach(function(x){"
    "x.setAttribute('aria-pressed',x===b?'true':'false');});})"
    ".catch(function(){var i=document.createElement('input');i.type='hidden';i.name='choice';"
    "i.value=b.value;f.appendChild(i);f.submit();});});})();\n";

/* Answers 200 with one of the assets above (text, len bytes: its terminating NUL left out)
 * as type; the text is static, req->out gets a copy. */
static void asset(struct request *req, const char *text, size_t len, const char *type)
{
    buf_append(&req->out, text, len);
    reply_body(req, 200, type);
}

void web_css(struct request *req)
{
    asset(req, css, sizeof css - 1, "text/css; charset=utf-8");
}

/* Browsers ask for it on every page: answer "nothing here" instead of an error. */
void web_favicon(struct request *req)
{
    reply_body(req, 204, "image/x-icon");
}

/* The copy button of a new agent key (hidden without JavaScript; the key is selectable). */
static const char developers_js[] =
    "(function(){var b=document.getElementById('copy-key');"
    "var k=document.getElementById('new-key-secret');if(!b||!k)return;b.hidden=false;"
    "b.addEventListener('click',function(){var t=k.textContent.trim();"
    "var done=function(){b.textContent='Copied';};"
    "if(navigator.clipboard&&navigator.clipboard.writeText){"
    "navigator.clipboard.writeText(t).then(done,function(){sel();});}else{sel();}"
    "function sel(){var r=document.createRange();r.selectNodeContents(k);"
    "var s=window.getSelection();s.removeAllRanges();s.addRange(r);"
    "try{document.execCommand('copy');done();}catch(e){}}});})();\n";

void web_developers_js(struct request *req)
{
    asset(req, developers_js, sizeof developers_js - 1, "text/javascript; charset=utf-8");
}

void web_js(struct request *req)
{
    asset(req, js, sizeof js - 1, "text/javascript; charset=utf-8");
}
