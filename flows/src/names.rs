//! The names the board top and the build scripts must agree on: the instance
//! names of the board top (the crossing constraints find the user logic's
//! clock pins through them, the build scripts report per instance) and the
//! build-folder paths of the generated board files. Both `board_top` and
//! `render` take them from here, so neither imports the other for a name.

/// Instance name of the user logic in the board top.
pub const USER_INST: &str = "u_user_logic";
/// Instance name of the TOE core in the board top.
pub const TOE_INST: &str = "u_toe";
/// Instance name of the Ethernet MAC wrapper in the board top of an open-core
/// design (`toe.core = "open"`), in place of the TOE core.
pub const MAC_INST: &str = "u_mac";
/// Instance name of the platform (clocks, resets, register master).
pub const PLATFORM_INST: &str = "u_platform";

/// Build-folder paths of the generated board files.
pub struct BoardFiles {
    pub top: String,
    pub toe_stub: String,
    /// The MAC wrapper's stub, generated for an open-core design only.
    pub mac_stub: String,
    pub platform_stub: String,
}

impl BoardFiles {
    pub fn new(top: &str) -> BoardFiles {
        BoardFiles {
            top: format!("rtl/{top}_board.v"),
            toe_stub: format!("rtl/stub/{top}_toe.v"),
            mac_stub: format!("rtl/stub/{top}_mac.v"),
            platform_stub: format!("rtl/stub/{top}_platform.v"),
        }
    }
}
