//! `cairn-mock-model --script FILE [--port N]`: serve a script (format in the crate docs),
//! print `READY http://127.0.0.1:PORT/v1`, serve until killed.

use cairn_mock_model::{MockServer, Script};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: cairn-mock-model --script FILE [--port N]";

struct Args {
    script: PathBuf,
    port: u16,
}

fn parse_args() -> Result<Args, String> {
    let mut script = None;
    let mut port = 0;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--script" => script = Some(PathBuf::from(args.next().ok_or("--script needs a FILE")?)),
            "--port" => {
                let value = args.next().ok_or("--port needs a number")?;
                port = value
                    .parse()
                    .map_err(|_| format!("--port needs a number from 0 to 65535, got {value:?}"))?;
            }
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(Args {
        script: script.ok_or("--script FILE is required")?,
        port,
    })
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            let mut stderr = std::io::stderr();
            if !message.is_empty() {
                let _ = writeln!(stderr, "cairn-mock-model: {message}");
            }
            let _ = writeln!(stderr, "{USAGE}");
            return ExitCode::from(2);
        }
    };
    let script = match Script::load(&args.script) {
        Ok(script) => script,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "cairn-mock-model: {e}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            let _ = writeln!(
                std::io::stderr(),
                "cairn-mock-model: cannot start tokio: {e}"
            );
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(serve(script, args.port))
}

async fn serve(script: Script, port: u16) -> ExitCode {
    let server = match MockServer::start_on(port, script.responses).await {
        Ok(server) => server,
        Err(e) => {
            let _ = writeln!(
                std::io::stderr(),
                "cairn-mock-model: cannot listen on 127.0.0.1:{port}: {e}"
            );
            return ExitCode::FAILURE;
        }
    };
    if let Some(models) = script.models {
        server.set_models(models);
    }
    let mut stdout = std::io::stdout();
    if writeln!(stdout, "READY {}", server.base_url())
        .and_then(|()| stdout.flush())
        .is_err()
    {
        return ExitCode::FAILURE;
    }
    // Report request check violations as they appear; a test harness reads stderr.
    let mut seen_requests = 0;
    let mut reported = 0;
    loop {
        seen_requests = server.wait_for_requests(seen_requests + 1).await.len();
        let violations = server.violations();
        let mut stderr = std::io::stderr();
        for violation in &violations[reported..] {
            let _ = writeln!(stderr, "VIOLATION {violation}");
        }
        reported = violations.len();
    }
}
