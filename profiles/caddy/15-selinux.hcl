# 15-selinux.hcl: Caddy on almalinux-9 is EPEL's package, confined in
# httpd_t: its %post labels /usr/bin/caddy httpd_exec_t, /etc/caddy
# httpd_config_t and /var/lib/caddy httpd_var_lib_t, and adds UDP 80/443 to
# http_port_t for HTTP/3, but only when semanage is installed (the site
# part's 07-selinux.hcl installs it first: Fedora's caddy.spec,
# caddy-2.10.2, has no Requires on it). The same labels are made here too,
# for a caddy installed before semanage was, with the two things the package
# does not do: the log directory (the Caddyfile's `log` writes
# /var/log/caddy/access.log, var_log_t by default: httpd_t may not write
# it) and the profile's own ports when they are not 80/443.
#
# The package's %post also turns httpd_can_network_connect on, so that
# Caddy can reach an ACME server; this Caddy fetches nothing (local
# certificate, no admin API) and PHP-FPM shares the domain, so it goes back
# off: no boolean broader than the servers need.

command "selinux_caddy_contexts" {
  when    = platform.package_manager == "dnf"
  only_if = "selinuxenabled"
  unless  = "matchpathcon -n /usr/bin/caddy | grep -q ':httpd_exec_t:' && matchpathcon -n /etc/caddy/Caddyfile | grep -q ':httpd_config_t:' && matchpathcon -n /var/lib/caddy/x | grep -q ':httpd_var_lib_t:' && matchpathcon -n /var/log/caddy/access.log | grep -q ':httpd_log_t:'"
  run     = <<-EOT
    set -eu
    semanage fcontext -a -t httpd_exec_t '/usr/bin/caddy' 2>/dev/null || semanage fcontext -m -t httpd_exec_t '/usr/bin/caddy'
    semanage fcontext -a -t httpd_config_t '/etc/caddy(/.*)?' 2>/dev/null || semanage fcontext -m -t httpd_config_t '/etc/caddy(/.*)?'
    semanage fcontext -a -t httpd_var_lib_t '/var/lib/caddy(/.*)?' 2>/dev/null || semanage fcontext -m -t httpd_var_lib_t '/var/lib/caddy(/.*)?'
    semanage fcontext -a -t httpd_log_t '/var/log/caddy(/.*)?' 2>/dev/null || semanage fcontext -m -t httpd_log_t '/var/log/caddy(/.*)?'
  EOT
}

# After 30-caddy.hcl makes the configuration and log directories.
command "selinux_caddy_restorecon" {
  when       = platform.package_manager == "dnf"
  depends_on = ["directory.caddy_conf_dir", "directory.caddy_log_dir"]
  only_if    = "selinuxenabled"
  unless     = "test -z \"$(restorecon -n -v /usr/bin/caddy; restorecon -R -n -v /etc/caddy /var/lib/caddy /var/log/caddy)\""
  run        = "restorecon -v /usr/bin/caddy && restorecon -R -v /etc/caddy /var/lib/caddy /var/log/caddy"
  # A running Caddy keeps its domain until it is started again.
  notify = ["caddy"]
}

# The ports Caddy binds: TCP for both, UDP for HTTP/3 on the TLS port;
# only those not yet http_port_t are added.
locals {
  caddy_selinux_ports = distinct(["tcp ${var.http_port}", "tcp ${var.https_port}", "udp ${var.https_port}"])
}

command "selinux_caddy_ports" {
  when    = platform.package_manager == "dnf"
  only_if = "selinuxenabled"
  unless  = join("\n", [local.selinux_has_http_port, join(" && ", formatlist("has %s", local.caddy_selinux_ports))])
  run     = join("\n", concat(["set -eu", local.selinux_has_http_port], [for p in local.caddy_selinux_ports : "has ${p} || semanage port -a -t http_port_t -p ${p} 2>/dev/null || semanage port -m -t http_port_t -p ${p}"]))
  notify  = ["caddy"]
}

command "selinux_caddy_no_network_connect" {
  when    = platform.package_manager == "dnf"
  only_if = "selinuxenabled && getsebool httpd_can_network_connect | grep -q -- '--> on$'"
  run     = "setsebool -P httpd_can_network_connect off"
}

# Caddy is confined: it runs in httpd_t.
check "caddy_confined" {
  when = platform.package_manager == "dnf"
  command {
    run          = "if selinuxenabled 2>/dev/null; then echo \"caddy runs as: $(ps -C caddy -o label= | cut -d: -f3 | sort -u | paste -sd ' ')\"; else echo 'SELinux is not enabled'; fi"
    expect_regex = "(?m)^(caddy runs as: httpd_t|SELinux is not enabled)$"
  }
}
