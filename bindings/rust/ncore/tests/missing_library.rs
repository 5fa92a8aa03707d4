//! A program that cannot load libncore gets an error, never an abort
//! (such a program ended with SIGABRT, exit 134, before
//! `main`). The test runs itself again with `NCORE_LIBRARY` naming a file
//! that does not exist (the loader then tries nothing else): the load-time
//! ABI check lets the program start, and every entry point answers
//! `ErrorKind::Unavailable` with the loader's message naming what it tried.

use std::process::Command;

use ncore::{Backend, Communicator, Config, DataType, DeviceMemory, ErrorKind, Stream, UniqueId};

const CHILD: &str = "NCORE_TEST_MISSING_LIBRARY_CHILD";
const MISSING: &str = "/nonexistent/ncore-test/libncore.so.1";
const NAME: &str = "a_program_without_libncore_gets_errors_from_every_entry_point_not_an_abort";

#[test]
fn a_program_without_libncore_gets_errors_from_every_entry_point_not_an_abort() {
    if std::env::var_os(CHILD).is_some() {
        return every_entry_point_reports_the_missing_library();
    }
    let output = Command::new(std::env::current_exe().expect("test binary path"))
        .args(["--exact", NAME, "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .env("NCORE_LIBRARY", MISSING)
        .output()
        .expect("run the test binary again");
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the program without libncore did not end normally ({}):\n{text}",
        output.status
    );
    assert!(
        text.contains("every entry point answered Unavailable"),
        "{text}"
    );
}

fn every_entry_point_reports_the_missing_library() {
    let why = ncore::library_path()
        .expect_err("NCORE_LIBRARY names no file")
        .to_string();
    assert!(
        why.contains(&format!("NCORE_LIBRARY={MISSING}")) && why.contains("Set NCORE_LIBRARY"),
        "the load error does not say what was tried: {why}"
    );
    let expect = |what: &str, error: ncore::Error| {
        assert_eq!(error.kind(), ErrorKind::Unavailable, "{what}: {error}");
        assert_eq!(
            error.message(),
            why,
            "{what}: the message is the load error"
        );
        assert!(
            error.to_string().contains("NCORE_ERR_UNAVAILABLE"),
            "{what}: {error}"
        );
    };
    let id = UniqueId::from_bytes([0; ncore::UNIQUE_ID_BYTES]);
    expect("from_env", Communicator::from_env(None).unwrap_err());
    expect(
        "init_rank",
        Communicator::init_rank(1, &id, 0, None).unwrap_err(),
    );
    expect(
        "init_rank with a config",
        Communicator::init_rank(1, &id, 0, Some(&Config::new())).unwrap_err(),
    );
    expect("UniqueId::new", UniqueId::new(Backend::Host).unwrap_err());
    expect(
        "DeviceMemory::alloc",
        DeviceMemory::alloc(64, Backend::Host).unwrap_err(),
    );
    expect("Stream::new", Stream::new(Backend::Host).unwrap_err());
    expect("Backend::resolve", Backend::Host.resolve().unwrap_err());
    expect("DataType::size", DataType::FLOAT32.size().unwrap_err());
    expect("library_info", ncore::library_info().unwrap_err());
    expect(
        "device_count",
        ncore::device_count(Backend::Host).unwrap_err(),
    );
    expect("group_end", ncore::group_end().unwrap_err());
    assert_eq!(ncore::abi_version(), 0);
    assert!(!ncore::abi_compatible());
    assert_eq!(ncore::version(), "");
    assert!(!ncore::abi_checked_at_load());
    println!("every entry point answered Unavailable");
}
