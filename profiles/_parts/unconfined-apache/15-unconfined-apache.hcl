# The unconfined-apache part: Apache runs unconfined on almalinux-9, as
# cPanel requires of its servers (and as the first seed ran it), while
# PHP-FPM and the other servers stay confined (profile.uses = [...,
# "unconfined-apache"]).
#
# How: /usr/sbin/httpd is labelled bin_t (semanage fcontext, so the label
# survives package updates, then restorecon). systemd starts an executable
# labelled bin_t as unconfined_service_t instead of moving it to httpd_t,
# and Apache's children (mod_ruid2's switched users, php-cgi) inherit that.
# Why not the alternatives: `semanage permissive -a httpd_t` would make
# PHP-FPM and EPEL's Caddy permissive too (they share httpd_t); turning
# SELinux off needs a kernel argument and a reboot, and would unconfine
# everything. Only Apache's own executable changes label here.
command "selinux_apache_unconfined" {
  when    = platform.package_manager == "dnf"
  only_if = "selinuxenabled"
  unless  = "matchpathcon -n /usr/sbin/httpd | grep -q ':bin_t:' && stat -c %C /usr/sbin/httpd | grep -q ':bin_t:'"
  run     = <<-EOT
    set -eu
    semanage fcontext -a -t bin_t '/usr/sbin/httpd' 2>/dev/null || semanage fcontext -m -t bin_t '/usr/sbin/httpd'
    restorecon -v /usr/sbin/httpd
  EOT
  # A running Apache keeps its domain until it is started again.
  notify = ["apache"]
}

# Apache is unconfined: every httpd process runs as unconfined_service_t.
check "apache_unconfined" {
  when = platform.package_manager == "dnf"
  command {
    run          = "if selinuxenabled 2>/dev/null; then echo \"httpd runs as: $(ps -C httpd -o label= | cut -d: -f3 | sort -u | paste -sd ' ')\"; else echo 'SELinux is not enabled'; fi"
    expect_regex = "(?m)^(httpd runs as: unconfined_service_t|SELinux is not enabled)$"
  }
}
