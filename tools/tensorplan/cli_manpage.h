/* The man page and the shell completions of tensorplan, generated from the
 * subcommands' option tables (cli_opts.h). cmds: the n subcommands in the
 * order of `tensorplan --help`. */
#ifndef TP_CLI_MANPAGE_H
#define TP_CLI_MANPAGE_H

#include "cli_opts.h"

/* tensorplan(1) in roff: NAME, SYNOPSIS, DESCRIPTION, COMMANDS, OPTIONS (one
 * subsection per command, every row of its table), EXIT STATUS, ENVIRONMENT
 * (tensorplan/env.h), FILES, EXAMPLES, SEE ALSO. */
void tp_cli_write_man(FILE *f, const tp_cli_command *const *cmds, size_t n);
/* A bash completion script (complete -F _tensorplan tensorplan). */
void tp_cli_write_bash(FILE *f, const tp_cli_command *const *cmds, size_t n);
/* A zsh completion function (#compdef tensorplan), for a file named _tensorplan. */
void tp_cli_write_zsh(FILE *f, const tp_cli_command *const *cmds, size_t n);

#endif
