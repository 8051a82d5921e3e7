# {{ banner[0] }}
# {{ banner[1] }}
#
# Pins and clocks of {{ board_desc }} ({{ board_file }}),
# for the board top `{{ board_top_plain }}`. Each fact's source is in the board file.

# Free-running board clock, {{ free.freq }} MHz
set_property PACKAGE_PIN {{ free.pin_p }} [get_ports {{ free.port_p }}]{% if let Some(n) = free.pin_n %}
set_property PACKAGE_PIN {{ n }} [get_ports {{ free.port_n }}]{% endif %}{% if let Some(io) = free.io_standard %}
set_property IOSTANDARD {{ io }} [get_ports {{ free.port_p }}]
set_property IOSTANDARD {{ io }} [get_ports {{ free.port_n }}]{% endif %}
create_clock -period {{ free.period }} -name {{ free.name }} [get_ports {{ free.port_p }}]

# {{ qsfp_name }} transceiver reference clock, {{ refclk.freq }} MHz (dedicated GT pins, no I/O standard)
set_property PACKAGE_PIN {{ refclk.pin_p }} [get_ports {{ refclk.port_p }}]{% if let Some(n) = refclk.pin_n %}
set_property PACKAGE_PIN {{ n }} [get_ports {{ refclk.port_n }}]{% endif %}
create_clock -period {{ refclk.period }} -name {{ refclk.name }} [get_ports {{ refclk.port_p }}]

# {{ qsfp_name }} lanes{% for l in lanes %}
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

# Clock-domain crossings inside the user logic: its clocks are independent
# and every crossing goes through a synchroniser in the RTL.
set_clock_groups -asynchronous{% for c in user_clock_pins %} -group [get_clocks -of_objects [get_pins {{ c }}]]{% endfor %}
