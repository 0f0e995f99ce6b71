# 29-firewall.hcl: firewalld, when the host runs it (AlmaLinux images may),
# would keep the web ports closed to the load generator while every check,
# on loopback, passes. Each port the profile serves is opened for TCP and
# UDP (HTTP/3) in the default zone, now and across reboots (--permanent).
# A host without firewalld, or with it stopped, is left alone.

locals {
  firewall_ports = distinct(flatten([for p in [var.http_port, var.https_port] : ["${p}/tcp", "${p}/udp"]]))
}

command "firewalld_ports" {
  when    = platform.package_manager == "dnf"
  only_if = "firewall-cmd --state >/dev/null 2>&1"
  unless  = "${join(" && ", formatlist("firewall-cmd --query-port=%s >/dev/null && firewall-cmd --permanent --query-port=%s >/dev/null", local.firewall_ports, local.firewall_ports))}"
  run     = join("\n", concat(["set -eu"], flatten([for p in local.firewall_ports : ["firewall-cmd --add-port=${p}", "firewall-cmd --permanent --add-port=${p}"]])))
}

fact "firewalld" {
  when = platform.package_manager == "dnf"
  run  = "if ! command -v firewall-cmd >/dev/null; then echo absent; elif [ \"$(firewall-cmd --state 2>/dev/null)\" = running ]; then echo \"running; open ports: $(firewall-cmd --list-ports)\"; else echo 'not running'; fi"
}
