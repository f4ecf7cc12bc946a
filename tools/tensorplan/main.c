/* tensorplan — command-line entry: dispatches to cmd_<name>.c subcommands. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli_manpage.h"

static const struct {
    const tp_cli_command *cmd;
    int (*run)(int argc, char **argv);
} commands[] = {
#define TP_CLI_COMMAND(n) {&tp_cli_##n##_command, tp_cli_##n},
#include "cli_commands.inc"
#undef TP_CLI_COMMAND
};

static void usage(FILE *f) {
    fprintf(f, "usage: tensorplan <command> [options]\n\n"
               "Plan memory, estimate peaks and predict latency of ML models before loading "
               "weights.\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-10s %s\n", commands[i].cmd->name, commands[i].cmd->summary);
    fprintf(f, "\nRun 'tensorplan <command> --help' for a command's options and examples.\n"
               "Every command takes --quiet (no progress lines on stderr) and --json.\n"
               "Exit codes: 0 ok, 1 error, 2 usage error, 3 does not fit the budget.\n");
}

/* A command's result is only as good as its output: a full disk or a closed pipe
 * behind standard output turns success into an error, with the system's reason. */
static int finish_stdout(const char *cmd, int rc) {
    errno = 0;
    bool failed = fflush(stdout) != 0;
    int e = errno;
    failed = failed || ferror(stdout);
    if (!failed) return rc;
    fprintf(stderr, "tensorplan %s: error: cannot write standard output: %s\n", cmd,
            e ? strerror(e) : "write error");
    return rc == TP_EXIT_USAGE ? rc : TP_EXIT_ERROR;
}

/* Hidden: the man page and the completions the build installs (cli_manpage.h),
 * on stdout or into FILE:
 *   tensorplan --help-man [FILE]      tensorplan --completions bash|zsh [FILE] */
static int generate(int argc, char **argv) {
    enum { N = sizeof commands / sizeof commands[0] };
    const tp_cli_command *cmds[N];
    for (size_t i = 0; i < N; i++)
        cmds[i] = commands[i].cmd;
    bool man = strcmp(argv[1], "--help-man") == 0;
    int nargs = man ? 2 : 3;
    const char *shell = man ? "" : argc > 2 ? argv[2] : "";
    if (argc < nargs || argc > nargs + 1 ||
        (!man && strcmp(shell, "bash") != 0 && strcmp(shell, "zsh") != 0)) {
        fprintf(stderr, "usage: tensorplan --help-man [FILE] | --completions bash|zsh [FILE]\n");
        return TP_EXIT_USAGE;
    }
    FILE *f = argc > nargs ? fopen(argv[nargs], "w") : stdout;
    if (!f) {
        perror(argv[nargs]);
        return TP_EXIT_ERROR;
    }
    if (man)
        tp_cli_write_man(f, cmds, N);
    else if (strcmp(shell, "bash") == 0)
        tp_cli_write_bash(f, cmds, N);
    else
        tp_cli_write_zsh(f, cmds, N);
    bool ok = fflush(f) == 0 && !ferror(f);
    if (f != stdout) ok = fclose(f) == 0 && ok;
    return ok ? TP_EXIT_OK : TP_EXIT_ERROR;
}

int main(int argc, char **argv) {
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? TP_EXIT_USAGE : TP_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("tensorplan %s\n", tp_version());
        return TP_EXIT_OK;
    }
    if (strcmp(argv[1], "--help-man") == 0 || strcmp(argv[1], "--completions") == 0)
        return generate(argc, argv);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].cmd->name) == 0)
            return finish_stdout(argv[1], commands[i].run(argc - 1, argv + 1));
    fprintf(stderr, "tensorplan: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return TP_EXIT_USAGE;
}
