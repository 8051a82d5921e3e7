//! The six status levels a TOE shows for one session (`established`,
//! `peer_closed`, `conn_error`, `peer_port`, `peer_mss`, `peer_window_scale`)
//! as one value: both TOEs that implement the session interface (this model
//! and `socket_toe`) keep them in a [`SessionStatus`], clear them with
//! [`SessionStatus::reset_for_open`] when an open request is taken and copy
//! them into the session's [`SessionInputs`] with [`SessionStatus::apply_to`],
//! so the rule "an open request clears the levels and the peer fields, which
//! keep their values until then" exists once.

use crate::SessionInputs;

/// The TOE-side status levels of one session, as the user logic sees them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SessionStatus {
    /// `established`.
    pub established: bool,
    /// `peer_closed`: the peer's FIN arrived and every byte before it was taken.
    pub peer_closed: bool,
    /// `conn_error`.
    pub conn_error: bool,
    /// `peer_port`: the peer's local port.
    pub peer_port: u16,
    /// `peer_mss`.
    pub peer_mss: u16,
    /// `peer_window_scale`.
    pub peer_window_scale: u8,
}

impl SessionStatus {
    /// An open request was taken: every level falls and the peer fields go to
    /// 0 (they kept the last connection's values until now).
    pub fn reset_for_open(&mut self) {
        *self = Self::default();
    }

    /// The peer of the connection being set up: its port, MSS and window-scale shift.
    pub fn set_peer(&mut self, port: u16, mss: u16, window_scale: u8) {
        self.peer_port = port;
        self.peer_mss = mss;
        self.peer_window_scale = window_scale;
    }

    /// Copies the six levels into `inputs` (the other fields are left alone).
    pub fn apply_to(&self, inputs: &mut SessionInputs) {
        inputs.established = self.established;
        inputs.peer_closed = self.peer_closed;
        inputs.conn_error = self.conn_error;
        inputs.peer_port = self.peer_port;
        inputs.peer_mss = self.peer_mss;
        inputs.peer_window_scale = self.peer_window_scale;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_clears_and_apply_copies_only_the_six_levels() {
        let mut st = SessionStatus { established: true, peer_closed: true, conn_error: true, ..Default::default() };
        st.set_peer(61000, 8948, 5);
        let mut inp = SessionInputs {
            conn_req_ready: true,
            tx_tready: true,
            rx_tvalid: true,
            rx_data: vec![7],
            ..Default::default()
        };
        st.apply_to(&mut inp);
        assert!(inp.established && inp.peer_closed && inp.conn_error);
        assert_eq!((inp.peer_port, inp.peer_mss, inp.peer_window_scale), (61000, 8948, 5));
        assert!(inp.conn_req_ready && inp.tx_tready && inp.rx_tvalid && inp.rx_data == [7]);
        st.reset_for_open();
        assert_eq!(st, SessionStatus::default());
        st.apply_to(&mut inp);
        assert!(!inp.established && !inp.peer_closed && !inp.conn_error);
        assert_eq!((inp.peer_port, inp.peer_mss, inp.peer_window_scale), (0, 0, 0));
    }
}
