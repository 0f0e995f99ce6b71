# 15-selinux.hcl: nginx on almalinux-9 is confined in httpd_t by the base
# policy's own labels (/usr/sbin/nginx httpd_exec_t, /etc/nginx
# httpd_config_t, /var/log/nginx httpd_log_t); the site part labels the
# docroot and the certificate, the fpm part lets PHP reach the database.
# What is left is the profile's ports when they are not http_port_t yet
# (TCP only: no HTTP/3).

locals {
  nginx_selinux_ports = distinct(["tcp ${var.http_port}", "tcp ${var.https_port}"])
}

command "selinux_nginx_ports" {
  when    = platform.package_manager == "dnf"
  only_if = "selinuxenabled"
  unless  = join("\n", [local.selinux_has_http_port, join(" && ", formatlist("has %s", local.nginx_selinux_ports))])
  run     = join("\n", concat(["set -eu", local.selinux_has_http_port], [for p in local.nginx_selinux_ports : "has ${p} || semanage port -a -t http_port_t -p ${p} 2>/dev/null || semanage port -m -t http_port_t -p ${p}"]))
  notify  = ["nginx"]
}

# nginx is confined: it runs in httpd_t.
check "nginx_confined" {
  when = platform.package_manager == "dnf"
  command {
    run          = "if selinuxenabled 2>/dev/null; then echo \"nginx runs as: $(ps -C nginx -o label= | cut -d: -f3 | sort -u | paste -sd ' ')\"; else echo 'SELinux is not enabled'; fi"
    expect_regex = "(?m)^(nginx runs as: httpd_t|SELinux is not enabled)$"
  }
}
