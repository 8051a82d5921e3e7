# {{ banner[0] }}
# {{ banner[1] }}
#
# Pins and clocks of {{ pins.board_desc }} ({{ pins.board_file }}),
# for the board top `{{ pins.board_top_plain }}`. Each fact's source is in the board file.

# Free-running board clock, {{ pins.free.freq }} MHz
set_property PACKAGE_PIN {{ pins.free.pin_p }} [get_ports {{ pins.free.port_p }}]{% if let Some(n) = pins.free.pin_n %}
set_property PACKAGE_PIN {{ n }} [get_ports {{ pins.free.port_n }}]{% endif %}{% if let Some(io) = pins.free.io_standard %}
set_property IOSTANDARD {{ io }} [get_ports {{ pins.free.port_p }}]
set_property IOSTANDARD {{ io }} [get_ports {{ pins.free.port_n }}]{% endif %}
create_clock -period {{ pins.free.period }} -name {{ pins.free.name }} [get_ports {{ pins.free.port_p }}]

# {{ pins.qsfp_name }} transceiver reference clock, {{ pins.refclk.freq }} MHz (dedicated GT pins, no I/O standard)
set_property PACKAGE_PIN {{ pins.refclk.pin_p }} [get_ports {{ pins.refclk.port_p }}]{% if let Some(n) = pins.refclk.pin_n %}
set_property PACKAGE_PIN {{ n }} [get_ports {{ pins.refclk.port_n }}]{% endif %}
create_clock -period {{ pins.refclk.period }} -name {{ pins.refclk.name }} [get_ports {{ pins.refclk.port_p }}]

# {{ pins.qsfp_name }} lanes{% for l in pins.lanes %}
set_property PACKAGE_PIN {{ l.tx_p }} [get_ports {{ l.port_tx_p }}] ;# {{ l.gt }}
set_property PACKAGE_PIN {{ l.tx_n }} [get_ports {{ l.port_tx_n }}]
set_property PACKAGE_PIN {{ l.rx_p }} [get_ports {{ l.port_rx_p }}]
set_property PACKAGE_PIN {{ l.rx_n }} [get_ports {{ l.port_rx_n }}]{% endfor %}
{% if let Some(p) = pcie %}
# PCIe x{{ p.lanes }}: reference clock {{ p.refclk.freq }} MHz and PERST#. The XDMA IP places the lanes.
set_property PACKAGE_PIN {{ p.refclk.pin_p }} [get_ports {{ p.refclk.port_p }}]{% if let Some(n) = p.refclk.pin_n %}
set_property PACKAGE_PIN {{ n }} [get_ports {{ p.refclk.port_n }}]{% endif %}
create_clock -period {{ p.refclk.period }} -name {{ p.refclk.name }} [get_ports {{ p.refclk.port_p }}]
set_property PACKAGE_PIN {{ p.perst_pin }} [get_ports {{ p.perst_port }}]
set_property IOSTANDARD {{ p.perst_io_standard }} [get_ports {{ p.perst_port }}]
set_false_path -from [get_ports {{ p.perst_port }}]
{% endif %}
# Board clocks are unrelated (separate sources or unrelated frequencies): logic that
# crosses between their domains synchronises, so no path between them is timed.
set_clock_groups -asynchronous{% for c in board_clocks %} -group [get_clocks -include_generated_clocks {{ c }}]{% endfor %}
{% if let Some(x) = cdc %}
# Register-file crossing inside the user logic (docs/register_file.md, "Implementation
# constraints"). Its two clocks are not put in asynchronous groups: a clock group would
# override these max delays. If your platform derives them from two different board
# clocks, the board clock groups above do the same: derive both from one board clock.
# Synchroniser flip-flops (registers u_core/u_req_sync/ff1_reg ... of the register file):{% for c in x.vivado_sync %}
set_property ASYNC_REG TRUE [get_cells -hierarchical -filter {{ c }}]{% endfor %}
# Held values, stable while the other domain samples them: at most one destination period.{% for c in x.crossings %}
# {{ c.what }}
set_max_delay -datapath_only -from [get_cells -hierarchical -filter {{ c.vivado_cells }}] -to [get_clocks -of_objects [get_pins {{ c.clock_pin }}]] {{ c.period }}{% endfor %}
{% else %}
# Clock-domain crossings inside the user logic: its clocks are independent
# and every crossing goes through a synchroniser in the RTL.
set_clock_groups -asynchronous{% for c in user_clock_pins %} -group [get_clocks -of_objects [get_pins {{ c }}]]{% endfor %}
{% endif %}
