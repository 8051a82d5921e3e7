rtl/toe_user_logic_session.v
rtl/toe_user_logic_regs.v
rtl/toe_user_logic.v
