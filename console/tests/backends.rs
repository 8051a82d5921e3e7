//! The PCIe-BAR and XDMA backends against a regular file standing in for
//! the BAR: every register offset of the map round-trips (through the
//! backend and in the file's bytes, little-endian), and each error path
//! (missing file, not a file, too small for the map, a bad PCI address)
//! gives a clear message. Neither backend has been run on hardware.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use console::backend::{self, map_extent, PcieBar, Xdma};
use console::{ops, regs};
use etherbone::RegisterBus;

fn bar_file(dir: &Path, len: u64) -> std::path::PathBuf {
    let p = dir.join("resource0");
    let f = std::fs::File::create(&p).unwrap();
    f.set_len(len).unwrap();
    p
}

/// Writes a distinct word at every register address, reads each back
/// through the backend, and finds it in the file at that offset.
fn round_trip(bus: &mut dyn RegisterBus, path: &Path) {
    let word = |a: u32| 0xA500_0000 ^ a.wrapping_mul(0x0101_0107);
    for r in regs::ALL {
        bus.write32(r.addr, word(r.addr)).unwrap();
    }
    for r in regs::ALL {
        assert_eq!(bus.read32(r.addr).unwrap(), word(r.addr), "{} at {:#x}", ops::register_name(r), r.addr);
    }
    let bytes = std::fs::read(path).unwrap();
    for r in regs::ALL {
        let a = r.addr as usize;
        assert_eq!(u32::from_le_bytes(bytes[a..a + 4].try_into().unwrap()), word(r.addr), "file bytes at {a:#x}");
    }
}

#[test]
fn pcie_bar_round_trips_every_register_of_the_map() {
    let dir = tempfile::tempdir().unwrap();
    let p = bar_file(dir.path(), 1 << regs::ADDRESS_BITS);
    let mut bar = PcieBar::open(&p).expect("the stand-in BAR opens");
    round_trip(&mut bar, &p);
    assert!(bar.read32(1 << regs::ADDRESS_BITS).is_err(), "past the BAR");
    assert!(bar.read32(2).is_err(), "not word-aligned");
}

#[test]
fn xdma_round_trips_every_register_of_the_map() {
    let dir = tempfile::tempdir().unwrap();
    let p = bar_file(dir.path(), map_extent());
    let mut dev = Xdma::open(&p).expect("the stand-in device opens");
    round_trip(&mut dev, &p);
    match dev.read32(map_extent() as u32) {
        Err(etherbone::BusError::Io { message, .. }) => assert_eq!(message, "0 of 4 bytes"),
        other => panic!("a read past the end: {other:?}"),
    }
}

#[test]
fn a_bar_too_small_for_the_map_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    // The last register of the map is the last session's histogram count.
    let last = regs::session(regs::session::COUNT - 1).unwrap().hist_count();
    let need = u64::from(last.addr) + 4;
    assert_eq!(map_extent(), need);
    assert!(need <= 1 << regs::ADDRESS_BITS, "{need}");
    let p = bar_file(dir.path(), need - 4);
    let e = PcieBar::open(&p).err().expect("refused");
    assert!(e.contains(&format!("{} bytes, too small for the register map ({need} bytes)", need - 4)), "{e}");
    let e = Xdma::open(&p).err().expect("refused");
    assert!(e.contains("too small for the register map"), "{e}");
    // Exactly the map's size is enough.
    std::fs::File::options().write(true).open(&p).unwrap().set_len(need).unwrap();
    PcieBar::open(&p).expect("the map fits");
}

#[test]
fn missing_and_unusable_files_get_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("resource9");
    let e = PcieBar::open(&missing).err().expect("missing");
    assert!(e.starts_with(&format!("PCIe BAR {}: no such file", missing.display())), "{e}");
    let e = Xdma::open(&missing).err().expect("missing");
    assert!(e.starts_with(&format!("XDMA device {}: no such file", missing.display())), "{e}");
    let e = PcieBar::open(dir.path()).err().expect("a folder");
    assert!(e.contains("cannot open it"), "{e}");
}

#[test]
fn pci_addresses_name_the_sysfs_resource() {
    assert_eq!(backend::pcie_resource("3b:00.0").unwrap(), Path::new("/sys/bus/pci/devices/0000:3b:00.0/resource0"));
    assert_eq!(
        backend::pcie_resource("0001:AF:1f.7/2").unwrap(),
        Path::new("/sys/bus/pci/devices/0001:af:1f.7/resource2")
    );
    for bad in ["3b:00", "3b:00.8", "zz:00.0", "3b:00.0/6", "3b:00.0/x", "1:3b:00.0"] {
        assert!(backend::pcie_resource(bad).is_err(), "{bad}");
    }
    assert_eq!(
        backend::pcie_resource("3b:00.0/6").unwrap_err(),
        "--pcie 3b:00.0/6: BAR \"6\" is not a BAR number 0..=5"
    );
}

/// A file holding every register's reset value stands in for a board's
/// BAR: the console binary identifies it and lists its registers; an
/// all-zero file is not a TOE register file; a missing device is named.
#[test]
fn the_console_binary_over_xdma_identifies_the_board_first() {
    let dir = tempfile::tempdir().unwrap();
    let p = bar_file(dir.path(), 1 << regs::ADDRESS_BITS);
    let run = |args: &[&str]| {
        common::spawn({
            let mut c = Command::new(common::CONSOLE);
            c.args(args);
            c
        })
        .finish(Duration::from_secs(30))
    };
    let xdma = p.to_str().unwrap();
    let f = run(&["--xdma", xdma, "regs"]);
    assert_eq!(f.code, Some(1), "{}", f.all());
    assert!(f.stderr.iter().any(|l| l.contains("info.id reads 0x00000000, expected 0x544f4555")), "{}", f.all());
    {
        let mut dev = Xdma::open(&p).unwrap();
        for r in regs::ALL {
            dev.write32(r.addr, r.reset).unwrap();
        }
    }
    let f = run(&["--xdma", xdma, "regs"]);
    assert_eq!(f.code, Some(0), "{}", f.all());
    assert_eq!(f.stdout.len(), regs::ALL.len());
    let f = run(&["--xdma", xdma, "params", "show"]);
    assert!(f.stdout.iter().any(|l| l.contains("FPGA IP           : 192.168.200.42")), "{}", f.all());
    let f = run(&["--pcie", "0000:ff:1f.7", "regs"]);
    assert_eq!(f.code, Some(1), "{}", f.all());
    assert!(
        f.stderr.iter().any(|l| l.contains("/sys/bus/pci/devices/0000:ff:1f.7/resource0: no such file")),
        "{}",
        f.all()
    );
    let f = run(&["regs"]);
    assert_eq!(f.code, Some(2), "{}", f.all());
    assert!(f.stderr.iter().any(|l| l.contains("no register bus")), "{}", f.all());
}
