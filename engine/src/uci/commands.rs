//! The commands as one table: each row of [`COMMANDS`] is a command's name, its
//! handler, and what it does while a search or job runs (answered at once, or
//! queued). The dispatch, the busy path and the `(known: …)` list of the
//! unknown-command error all read the table, so adding a command is one row and
//! its handler.

use super::{Shell, Task};

/// Commands kept while a search runs; more are refused (a flood must not eat the memory).
const MAX_QUEUED_COMMANDS: usize = 10_000;

/// A command's handler when no task runs: the arguments after its name in, `Err`
/// for one error line (the state unchanged).
type Handler = fn(&mut Shell, &[&str]) -> Result<(), String>;

/// A command's answer while a task runs: the whole line in, false when the command
/// loop must end.
type BusyHandler = fn(&mut Shell, &str) -> bool;

/// One UCI command.
struct Command {
    name: &'static str,
    idle: Idle,
    while_busy: WhileBusy,
}

/// What a command does when no search or job runs.
#[derive(Clone, Copy)]
enum Idle {
    Run(Handler),
    /// Ends the command loop (`quit`).
    EndLoop,
}

/// What a command does while a search or job runs.
#[derive(Clone, Copy)]
enum WhileBusy {
    /// Waits in the queue and runs, in order, when the task ends, as if it had
    /// arrived then.
    Queued,
    /// Answered at once, except after a `stop`: then it is queued like any command,
    /// so that nothing overtakes the stopped search's `bestmove`.
    AtOnce(BusyHandler),
    /// Answered at once, even after a `stop` (`quit`).
    Overtakes(BusyHandler),
}

const fn queued(name: &'static str, run: Handler) -> Command {
    Command {
        name,
        idle: Idle::Run(run),
        while_busy: WhileBusy::Queued,
    }
}

const fn at_once(name: &'static str, run: Handler, answer: BusyHandler) -> Command {
    Command {
        name,
        idle: Idle::Run(run),
        while_busy: WhileBusy::AtOnce(answer),
    }
}

/// Accepted and ignored, idle or busy, as the protocol allows.
const fn ignored(name: &'static str) -> Command {
    at_once(name, |_, _| Ok(()), |_, _| true)
}

/// The commands, in the order the unknown-command error lists them.
static COMMANDS: &[Command] = &[
    at_once(
        "uci",
        |shell, _| {
            shell.cmd_uci();
            Ok(())
        },
        |shell, _| {
            shell.cmd_uci();
            true
        },
    ),
    at_once(
        "isready",
        |shell, _| {
            shell.apply_pending_if_idle();
            shell.out.text("readyok");
            Ok(())
        },
        |shell, _| {
            shell.out.text("readyok");
            true
        },
    ),
    queued("ucinewgame", |shell, _| {
        shell.clear_pending = true;
        shell.apply_pending_if_idle();
        Ok(())
    }),
    queued("setoption", Shell::cmd_setoption),
    queued("position", Shell::cmd_position),
    queued("go", Shell::cmd_go),
    // Idle, nothing runs: nothing to stop, as the protocol allows.
    at_once("stop", |_, _| Ok(()), |shell, _| shell.stop()),
    at_once("ponderhit", |_, _| Ok(()), |shell, _| shell.ponderhit()),
    Command {
        name: "quit",
        idle: Idle::EndLoop,
        while_busy: WhileBusy::Overtakes(Shell::quit_while_busy),
    },
    ignored("debug"),
    ignored("register"),
    queued("d", |shell, _| {
        shell.cmd_d();
        Ok(())
    }),
    queued("eval", |shell, _| {
        shell.cmd_eval();
        Ok(())
    }),
    queued("params", |shell, _| {
        shell.cmd_params();
        Ok(())
    }),
    queued("bench", Shell::cmd_bench),
    queued("genfens", Shell::cmd_genfens),
];

/// The row of the command named `name` (case matters, as in the protocol).
fn command(name: &str) -> Option<&'static Command> {
    COMMANDS.iter().find(|c| c.name == name)
}

fn unknown_command(name: &str) -> String {
    let known: Vec<&str> = COMMANDS.iter().map(|c| c.name).collect();
    format!("unknown command '{name}' (known: {})", known.join(", "))
}

impl Shell {
    /// Handles one command line; returns false when the loop must end (`quit`).
    pub(super) fn handle(&mut self, line: &str) -> bool {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let Some((&name, args)) = tokens.split_first() else {
            return true;
        };
        if self.task.is_some() {
            return self.handle_while_busy(name, line);
        }
        let result = match command(name).map(|c| c.idle) {
            Some(Idle::Run(run)) => run(self, args),
            Some(Idle::EndLoop) => return false,
            None => Err(unknown_command(name)),
        };
        if let Err(message) = result {
            self.out.error(&message);
        }
        true
    }

    /// A command while a search or job runs: answered at once, queued, or refused;
    /// never waits. Returns false when the loop must end.
    fn handle_while_busy(&mut self, name: &str, line: &str) -> bool {
        let stopping = matches!(&self.task, Some(Task::Search(s)) if s.stopping);
        match command(name).map(|c| c.while_busy) {
            Some(WhileBusy::Overtakes(answer)) => return answer(self, line),
            _ if stopping => self.enqueue(line),
            Some(WhileBusy::AtOnce(answer)) => return answer(self, line),
            Some(WhileBusy::Queued) => self.enqueue(line),
            None => self.out.error(&unknown_command(name)),
        }
        true
    }

    pub(super) fn enqueue(&mut self, line: &str) {
        if self.queue.len() >= MAX_QUEUED_COMMANDS {
            let shown: String = line.trim().chars().take(40).collect();
            self.out.error(&format!(
                "{MAX_QUEUED_COMMANDS} commands already wait for the running search, bench, perft or genfens; '{shown}' is dropped (send 'stop' or wait for bestmove)"
            ));
            return;
        }
        self.queue.push_back(line.to_string());
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::sync::mpsc;
    use std::sync::{Arc, Mutex};

    use super::*;

    /// What a shell under test printed.
    #[derive(Clone, Default)]
    struct Printed(Arc<Mutex<Vec<u8>>>);

    impl Write for Printed {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Printed {
        fn take(&self) -> String {
            String::from_utf8(std::mem::take(&mut *self.0.lock().unwrap())).unwrap()
        }
    }

    fn new_shell() -> (Shell, Printed) {
        let printed = Printed::default();
        let (sender, events) = mpsc::channel();
        (
            Shell::new(Box::new(printed.clone()), sender, events),
            printed,
        )
    }

    /// Every row is found by its name, listed by the unknown-command error and
    /// documented on the engine's page, and its command reaches its handler, idle and
    /// while a task runs.
    #[test]
    fn every_command_row_is_dispatched_listed_and_documented() {
        let page =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/engine.md"))
                .expect("docs/engine.md");
        let known = unknown_command("no-such-command");
        for row in COMMANDS {
            let name = row.name;
            assert!(
                command(name).is_some_and(|found| std::ptr::eq(found, row)),
                "'{name}' does not find its own row"
            );
            assert!(
                known.contains(&format!(" {name},")) || known.contains(&format!(" {name})")),
                "'{name}' is not in {known}"
            );
            assert!(
                page.contains(&format!("`{name}`")) || page.contains(&format!("`{name} ")),
                "'{name}' is not documented on docs/engine.md"
            );

            // Idle: a bogus argument makes each handler answer cheaply (an error,
            // its report or nothing), never the unknown-command error.
            let (mut shell, printed) = new_shell();
            let go_on = shell.handle(&format!("{name} --probe"));
            assert_eq!(go_on, matches!(row.idle, Idle::Run(_)), "{name}");
            let reply = printed.take();
            assert!(!reply.contains("unknown command"), "{name}: {reply}");

            // Busy: queued, or answered at once without being queued.
            let (mut shell, printed) = new_shell();
            shell.task = Some(Task::Job);
            let go_on = shell.handle(name);
            let reply = printed.take();
            assert!(!reply.contains("unknown command"), "{name}: {reply}");
            match row.while_busy {
                WhileBusy::Queued => {
                    assert!(go_on, "{name}");
                    assert_eq!(shell.queue, [name], "{name} is not queued");
                    assert_eq!(reply, "", "{name} answered before its turn");
                }
                WhileBusy::AtOnce(_) | WhileBusy::Overtakes(_) => {
                    assert!(shell.queue.is_empty(), "{name} was queued");
                    assert_eq!(go_on, name != "quit", "{name}");
                }
            }
        }
    }

    #[test]
    fn an_unknown_command_gets_the_list_of_known_ones() {
        let (mut shell, printed) = new_shell();
        assert!(shell.handle("frobnicate now"));
        assert_eq!(
            printed.take(),
            format!("info string error: {}\n", unknown_command("frobnicate"))
        );
        assert!(unknown_command("x").ends_with("(known: uci, isready, ucinewgame, setoption, position, go, stop, ponderhit, quit, debug, register, d, eval, params, bench, genfens)"));
    }
}
