//! The simulation shell of the product top (issue 27): a testbench artefact,
//! not a product output (`cargo run -p gen` does not write it).
//!
//! Verilator 5.006 evaluates the logic fed combinationally by a top-level
//! input on every `eval()`, two or more a clock cycle, and the product's
//! synchronous resets are such inputs: every block's next-state logic reads
//! its reset (`if (reset) x_next = ...`), so all of it was evaluated on every
//! call, the register file's hundred-odd words included. On a board the
//! reset reaches the user logic through the platform's reset synchroniser,
//! a register clocked by the domain it resets. The shell gives the
//! simulation the same: `<name>_sim` has exactly the top's ports (the port
//! plan, so every driver works unchanged) and instantiates the top with
//! each of its two resets through one register on its own clock:
//!
//! ```text
//!   user_rst --[reg @ user_clk]--> user_rst of <name>
//!   s_axil_aresetn --[reg @ s_axil_aclk]--> s_axil_aresetn of <name>
//!   every other port: straight through
//! ```
//!
//! So a reset asserts and releases one edge of its clock later than its pin
//! does; nothing else changes. Both registers start asserted. The product's
//! Verilog and its equivalence proofs are untouched: the shell only adds
//! registers in front of it.

use config::ports::{Direction, Group, Port, PortPlan};

use crate::{GenError, GeneratedFile};

/// The shell's module name for the top `name`.
pub fn module(name: &str) -> String {
    format!("{name}_sim")
}

/// One reset the shell registers: its group and name in the port plan, the
/// clock it is registered on, and its asserted level.
struct Registered {
    group: Group,
    reset: &'static str,
    clock: &'static str,
    asserted: u8,
}

const RESETS: [Registered; 2] = [
    Registered { group: Group::Clock, reset: "user_rst", clock: "user_clk", asserted: 1 },
    Registered { group: Group::Bus, reset: "aresetn", clock: "aclk", asserted: 0 },
];

/// The shell of the top `name` whose ports are `plan`: the file
/// `<name>_sim.v`. An error if the plan lacks a reset or its clock.
pub fn sim_shell(design: &config::Design, plan: &PortPlan) -> Result<GeneratedFile, GenError> {
    let name = &design.name;
    let shell = module(name);
    let find = |group: Group, local: &str| -> Result<&Port, GenError> {
        plan.get(group, local).map_err(|_| {
            GenError::Hdl(hdl::verilog::HdlError(format!(
                "the simulation shell: the top has no {} port `{local}`",
                group.describe()
            )))
        })
    };
    let mut regs = Vec::new();
    for r in &RESETS {
        let (reset, clock) = (find(r.group, r.reset)?, find(r.group, r.clock)?);
        if reset.direction != Direction::Input || reset.width != 1 || clock.direction != Direction::Input {
            return Err(GenError::Hdl(hdl::verilog::HdlError(format!(
                "the simulation shell: `{}` and `{}` must be one-bit inputs",
                reset.name, clock.name
            ))));
        }
        regs.push((reset.name.clone(), clock.name.clone(), r.asserted));
    }
    let mut s = String::new();
    s.push_str(&format!(
        "// Simulation shell, not part of the product (gen/src/sim_shell.rs):\n\
         // `{name}` with each reset through one register on its own clock, as\n\
         // a board's reset synchroniser delivers it, so that Verilator does not\n\
         // evaluate every block's next-state logic on every eval(). The ports are\n\
         // the top's; a reset takes effect one edge of its clock after its pin.\n\
         module {shell} (\n"
    ));
    let decls: Vec<String> = plan.ports().iter().map(|p| format!("    {}", p.declaration())).collect();
    s.push_str(&decls.join(",\n"));
    s.push_str("\n);\n\n");
    for (reset, clock, asserted) in &regs {
        s.push_str(&format!(
            "    // `{reset}`, registered on `{clock}`; asserted until the first edge.\n    \
             reg {reset}_reg = 1'b{asserted};\n    \
             always @(posedge {clock}) begin\n        {reset}_reg <= {reset};\n    end\n\n"
        ));
    }
    let conns: Vec<String> = plan
        .ports()
        .iter()
        .map(|p| {
            let net =
                if regs.iter().any(|(r, _, _)| *r == p.name) { format!("{}_reg", p.name) } else { p.name.clone() };
            format!("        .{}({net})", p.name)
        })
        .collect();
    s.push_str(&format!("    {name} u_{name} (\n{}\n    );\n\nendmodule\n", conns.join(",\n")));
    Ok(GeneratedFile { path: format!("{shell}.v"), contents: design.verilog_file(&s) })
}
