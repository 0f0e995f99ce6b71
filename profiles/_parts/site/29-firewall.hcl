# 29-firewall.hcl: firewalld, when the host runs it (AlmaLinux images may),
# would keep the web ports closed to the load generator while every check,
# on loopback, passes. Each port the profile serves (TCP, and UDP for
# HTTP/3 on the TLS port) is opened in the default zone, now and across
# reboots, to allow_from only, as the Hetzner firewall opens it to the
# load generators and allow_from: `wptest run` gives the run's load
# generators (and this host's address, when the load comes from here). The
# live profile's rules are the only ones: an apply removes what an earlier
# one opened and this one does not (wptest-firewall records it), and
# `wptest down` removes them from machines that outlive the run. A host
# without firewalld, or with it stopped, is left alone.

variable "allow_from" {
  type          = list(string)
  operator_only = true
  default       = []
  description   = "Addresses (IP or CIDR) that may reach the web ports where firewalld runs; `wptest run` adds its load generators. Empty: only the host itself."
  validation {
    condition     = length([for s in var.allow_from : s if !can(regex("^(([0-9]{1,3}[.]){3}[0-9]{1,3}(/[0-9]{1,2})?|[0-9a-fA-F:]*:[0-9a-fA-F:.]*(/[0-9]{1,3})?)$", s))]) == 0
    error_message = "allow_from: each entry must be an IPv4 or IPv6 address or CIDR, such as 203.0.113.7 or 2001:db8::/64."
  }
}

locals {
  firewall_ports   = join(" ", distinct(["${var.http_port}/tcp", "${var.https_port}/tcp", "${var.https_port}/udp"]))
  firewall_sources = join(" ", distinct(var.allow_from))
}

file "firewall_script" {
  path   = "${local.lib_dir}/wptest-firewall"
  source = "templates/shared/wptest-firewall"
  mode   = "0755"
}

command "firewalld_ports" {
  when    = platform.package_manager == "dnf"
  only_if = "firewall-cmd --state >/dev/null 2>&1"
  unless  = "${local.lib_dir}/wptest-firewall --check '${local.firewall_ports}' '${local.firewall_sources}'"
  run     = "${local.lib_dir}/wptest-firewall apply '${local.firewall_ports}' '${local.firewall_sources}'"
}

fact "firewalld" {
  when = platform.package_manager == "dnf"
  run  = "if ! command -v firewall-cmd >/dev/null; then echo absent; elif [ \"$(firewall-cmd --state 2>/dev/null)\" = running ]; then echo \"running; open ports: $(firewall-cmd --list-ports); wptest's rules: $(grep -c . /var/lib/wptest/firewalld-rules 2>/dev/null || echo 0)\"; else echo 'not running'; fi"
}

# When the run's machines go down and this host stays (a static or local
# machine), the rules wptest added go with the run.
teardown "firewalld" {
  run = "${local.lib_dir}/wptest-firewall clear"
}
