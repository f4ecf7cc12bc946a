/* tensorplan version — print the library version. */
#include "cli.h"

const char tp_cli_version_summary[] = "print the version";

int tp_cli_version(int argc, char **argv) {
    (void)argc;
    (void)argv;
    printf("tensorplan %s\n", tp_version());
    return TP_EXIT_OK;
}
