/* The self-contained HTML report page (the library's tp_report_html_page) and HTML escaping
 * for the tables cmd_report.c writes. */
#include "report_html.h"

#include "tensorplan/report.h"

void tp_cli_html_escape(FILE *f, const char *s) {
    for (; s && *s; s++) {
        switch (*s) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        default:
            fputc(*s, f);
        }
    }
}

int tp_cli_write_html(FILE *f, const char *title, const char *svg, const char *tables_html) {
    char *page = NULL;
    if (tp_report_html_page(title, svg, tables_html, &page, NULL, NULL) != TP_OK) return -1;
    int rc = fputs(page, f) < 0 || ferror(f) ? -1 : 0;
    tp_free_string(page);
    return rc;
}
