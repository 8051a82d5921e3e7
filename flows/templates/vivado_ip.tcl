# {{ banner[0] }}
# {{ banner[1] }}
#
# Vendor IP of the board build, sourced by build.tcl (in-memory project, {{ part }}).
# Generated in vivado/out/ip/.

set ip_dir [file join [file dirname [file normalize [info script]]] out ip]
file mkdir $ip_dir

# Register path: PCIe x{{ pcie_lanes }} -> XDMA, whose AXI4-Lite master (a BAR)
# drives the user logic's s_axil_* port through the board top.
create_ip -name xdma -vendor xilinx.com -library ip -module_name {{ xdma_name }} -dir $ip_dir
set_property -dict [list \
    CONFIG.mode_selection {Advanced} \
    CONFIG.pl_link_cap_max_link_width {X{{ pcie_lanes }}} \
    CONFIG.pl_link_cap_max_link_speed {8.0_GT/s} \
    CONFIG.ref_clk_freq {100_MHz} \
    CONFIG.axi_data_width {512_bit} \
    CONFIG.xdma_axi_intf_mm {AXI_Memory_Mapped} \
    CONFIG.axilite_master_en {true} \
    CONFIG.axilite_master_size {1} \
    CONFIG.axilite_master_scale {Megabytes} \
] [get_ips {{ xdma_name }}]

# Ethernet MAC: 100G CMAC on {{ qsfp_name }}, lanes {{ gt_first }}..{{ gt_last }}.
create_ip -name cmac_usplus -vendor xilinx.com -library ip -module_name {{ cmac_name }} -dir $ip_dir
set_property -dict [list \{% if let Some(site) = mac_site %}
    CONFIG.CMAC_CORE_SELECT {{ "{" }}{{ site }}{{ "}" }} \{% endif %}
    CONFIG.GT_GROUP_SELECT {{ "{" }}{{ gt_group }}{{ "}" }} \{% for l in gt_locs %}
    CONFIG.LANE{{ loop.index }}_GT_LOC {{ "{" }}{{ l }}{{ "}" }} \{% endfor %}
    CONFIG.GT_REF_CLK_FREQ {{ "{" }}{{ refclk_mhz }}{{ "}" }} \
] [get_ips {{ cmac_name }}]

generate_target all [get_ips]
synth_ip [get_ips]
