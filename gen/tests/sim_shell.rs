//! The simulation shell (`gen::sim_shell`): the top's ports exactly, each
//! reset through a register on its own clock. `board_top_lint.rs` lints it
//! with the top's sources.

use config::ports::Direction;

#[test]
fn the_shell_has_the_tops_ports_and_registers_its_resets() {
    for (what, text) in [("default", config::DEFAULT_TOML.to_string()), ("1 x 64 bits", small())] {
        let design = gen::parse_config(&text).unwrap();
        let build = gen::build(&design).unwrap();
        let shell = gen::sim_shell::sim_shell(&design, &build.plan).unwrap();
        let module = gen::sim_shell::module(&design.name);
        assert_eq!(shell.path, format!("{module}.v"));

        // Exactly the plan's ports, in its order, with its directions and widths.
        let ports = hdl::verilog::module_ports(&shell.contents, &module).unwrap();
        let want: Vec<(String, Direction, usize)> =
            build.plan.ports().iter().map(|p| (p.name.clone(), p.direction, p.width)).collect();
        let got: Vec<(String, Direction, usize)> = ports.into_iter().map(|(n, d, w)| (n.to_string(), d, w)).collect();
        assert_eq!(got, want, "{what}: the shell's ports");

        // The resets reach the top through a register on their own clock; the rest straight.
        for (reset, clock) in [("user_rst", "user_clk"), ("s_axil_aresetn", "s_axil_aclk")] {
            assert!(
                shell.contents.contains(&format!("always @(posedge {clock}) begin\n        {reset}_reg <= {reset};")),
                "{what}: {reset} registered on {clock}"
            );
            assert!(shell.contents.contains(&format!(".{reset}({reset}_reg)")), "{what}: {reset} from its register");
        }
        assert!(shell.contents.contains(".toe0_rx_tdata(toe0_rx_tdata)"), "{what}: a data input straight through");
    }
}

/// A one-session 64-bit design.
fn small() -> String {
    config::Variant::default().sessions(1).data_width(64).to_toml()
}
