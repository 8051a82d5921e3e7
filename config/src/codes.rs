//! The code tables the register map documents: each enumerated field's
//! values, defined once with the value, the name the map prints and the
//! description, so the register map (`regmap`), the configuration and the
//! logic (`hdl`) read the same numbers.
//!
//! ```
//! use config::codes::{CodeTable, ErrorCause};
//! assert_eq!(ErrorCause::Verify as u64, 3);
//! assert_eq!(ErrorCause::from_value(4), Some(ErrorCause::BeyondSize));
//! assert_eq!(ErrorCause::Aborted.name(), "aborted");
//! assert_eq!(<ErrorCause as CodeTable>::ALL.len(), 8);
//! assert_eq!(ErrorCause::from_value(7), Some(ErrorCause::ConnReset));
//! ```

/// A code table as the register map reads it: every value with its map name
/// and description, in value order.
pub trait CodeTable: Copy + 'static {
    /// Every code, in the order the register map lists them.
    const ALL: &'static [Self];
    /// The field value.
    fn value(self) -> u32;
    /// The name the register map gives the value.
    fn name(self) -> &'static str;
    /// The register map's description of the value.
    fn description(self) -> &'static str;
}

/// Defines one code table: the enum (each variant documented with its
/// description), `ALL`, `value`, `name`, `description`, `from_value`, and the
/// [`CodeTable`] impl.
macro_rules! code_table {
    ($(#[$meta:meta])* $table:ident { $($variant:ident = $value:literal, $name:literal, $description:literal;)+ }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $table {
            $(#[doc = $description] $variant = $value,)+
        }

        impl $table {
            /// Every code, in value order.
            pub const ALL: &'static [$table] = &[$($table::$variant),+];

            /// The field value.
            pub const fn value(self) -> u32 {
                self as u32
            }

            /// The name the register map gives the value.
            pub const fn name(self) -> &'static str {
                match self {
                    $($table::$variant => $name,)+
                }
            }

            /// The register map's description of the value.
            pub const fn description(self) -> &'static str {
                match self {
                    $($table::$variant => $description,)+
                }
            }

            /// The code with field value `value`, if there is one.
            pub const fn from_value(value: u32) -> Option<$table> {
                match value {
                    $($value => Some($table::$variant),)+
                    _ => None,
                }
            }
        }

        impl CodeTable for $table {
            const ALL: &'static [$table] = $table::ALL;
            fn value(self) -> u32 {
                $table::value(self)
            }
            fn name(self) -> &'static str {
                $table::name(self)
            }
            fn description(self) -> &'static str {
                $table::description(self)
            }
        }
    };
}

code_table! {
    /// How the TOE finds its peer (reference demo, section 3.1):
    /// `toe.toe_config.mode`.
    ToeMode {
        Client = 0, "client", "Resolve the target MAC with ARP; the FPGA starts the ARP exchange.";
        Server = 1, "server", "Wait for the peer's ARP request.";
        FixedMac = 2, "fixed_mac", "Use `target_mac`, no ARP (peer in another network domain).";
    }
}

code_table! {
    /// How the TOE marks the last packet of a transmission (reference demo,
    /// 3.1): `toe.toe_config.last_packet_mode`.
    LastPacketMode {
        Dup = 0, "dup", "Send the last packet twice, for a fast acknowledgement.";
        Psh = 1, "psh", "Set PSH on the last packet.";
        Normal = 2, "normal", "No special treatment.";
    }
}

code_table! {
    /// Why a session's test failed: `session.status.error_cause`.
    ErrorCause {
        None = 0, "none", "No error.";
        Refused = 1, "refused", "The connection was refused or the open timed out (`conn_error` before `established`).";
        PeerClosed = 2, "peer_closed", "The peer closed the connection before `transfer_size` bytes were received.";
        Verify = 3, "verify", "Received data differs from the incremental pattern (see `err_count`).";
        BeyondSize = 4, "beyond_size", "The peer sent more than `transfer_size` bytes.";
        Aborted = 5, "aborted", "Software wrote `ctrl.abort`.";
        Stalled = 6, "stalled", "Nothing moved for `stall_timeout` milliseconds: no beat either way and no step of the connection (a TOE that never takes a request, a window that stays shut, a peer that never closes).";
        ConnReset = 7, "conn_reset", "The connection was reset while the test ran: an RST (`conn_error`) or `established` falling before the session asked to close.";
    }
}

code_table! {
    /// What a session does: `session.test_config.test_mode`.
    TestMode {
        Disabled = 0, "disabled", "No test; `start` is ignored.";
        Send = 1, "send", "Send `transfer_size` bytes to the target.";
        Receive = 2, "receive", "Receive `transfer_size` bytes from the target.";
        FullDuplex = 3, "full_duplex", "Send and receive `transfer_size` bytes at the same time.";
        Latency = 4, "latency", "Round trips, as initiator: send a request of `latency_sizes.request` bytes and wait for a response of `latency_sizes.response` bytes, `request_count` times, with up to `test_config.outstanding` requests unanswered; each round trip is measured (`rtt_*`, the histogram).";
        Echo = 5, "echo", "Round trips, as responder: for every `latency_sizes.request` bytes received send `latency_sizes.response` bytes, until the peer closes.";
    }
}

code_table! {
    /// Data a session sends: `session.test_config.tx_pattern`.
    TxPattern {
        Incremental = 0, "incremental", "32-bit word k of the stream has value k (little-endian).";
        Dummy = 1, "dummy", "Zeros.";
    }
}

code_table! {
    /// How a session opens (and, in full duplex, closes) its connection:
    /// `session.test_config.conn_mode`.
    ConnMode {
        Active = 0, "active", "Client: open the connection to `target_port` (active open).";
        Passive = 1, "passive", "Server: listen on `fpga_port` (passive open).";
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check<C: CodeTable + std::fmt::Debug + PartialEq>(from_value: fn(u32) -> Option<C>) {
        for (i, code) in C::ALL.iter().enumerate() {
            assert_eq!(code.value(), i as u32, "{code:?}: values run 0, 1, 2, ... in order");
            assert_eq!(from_value(code.value()), Some(*code));
            assert!(!code.name().is_empty() && !code.description().is_empty());
        }
        assert_eq!(from_value(C::ALL.len() as u32), None);
    }

    #[test]
    fn every_table_decodes_its_own_values_and_nothing_else() {
        check(ToeMode::from_value);
        check(LastPacketMode::from_value);
        check(ErrorCause::from_value);
        check(TestMode::from_value);
        check(TxPattern::from_value);
        check(ConnMode::from_value);
    }
}
