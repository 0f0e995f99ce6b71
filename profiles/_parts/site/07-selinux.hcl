# SELinux on almalinux-9. AlmaLinux's cloud images enforce it, and the
# servers that share the httpd_t domain there (PHP-FPM, EPEL's Caddy) may
# read only what is labelled for them. wptest leaves SELinux in whatever
# mode the host has (disabling it needs a kernel argument and a reboot) and
# gives each confined server exactly the labels and booleans it needs, no
# broader: no permissive domains, no httpd_enable_homedirs (it opens every
# user's home to every httpd_t process; here only this site's home is
# labelled). Every change is guarded by selinuxenabled, so a host without
# SELinux skips it, and the host manifest records the mode and every local
# change (facts "selinux" and "selinux_changes").
#
# The rules come before the site user and docroot exist (20-site.hcl):
# useradd labels the home by them, and what root later makes inside a
# labelled directory (the docroot, `wptest seed`'s staging directory in the
# home) inherits its type. 29-selinux-labels.hcl relabels what exists.

# semanage. Also before EPEL's caddy, whose %post labels its files and
# ports only when semanage is there.
package "selinux_tools" {
  when  = platform.package_manager == "dnf"
  names = ["policycoreutils-python-utils"]
}

# The site's files for httpd_t: the home (only that directory, so PHP-FPM
# and Caddy can pass through to public_html; its other files keep their
# user_home_t), the docroot read-only, WordPress's uploads writable, and the
# TLS certificate and key as certificates.
command "selinux_site_contexts" {
  when    = platform.package_manager == "dnf"
  only_if = "selinuxenabled"
  unless  = "matchpathcon -n ${local.home} | grep -q ':httpd_sys_content_t:' && matchpathcon -n ${local.docroot}/index.php | grep -q ':httpd_sys_content_t:' && matchpathcon -n ${local.docroot}/wp-content/uploads/x | grep -q ':httpd_sys_rw_content_t:' && matchpathcon -n ${local.tls_key} | grep -q ':cert_t:'"
  run     = <<-EOT
    set -eu
    semanage fcontext -a -t httpd_sys_content_t '${local.home}' 2>/dev/null || semanage fcontext -m -t httpd_sys_content_t '${local.home}'
    semanage fcontext -a -t httpd_sys_content_t '${local.docroot}(/.*)?' 2>/dev/null || semanage fcontext -m -t httpd_sys_content_t '${local.docroot}(/.*)?'
    semanage fcontext -a -t httpd_sys_rw_content_t '${local.docroot}/wp-content/uploads(/.*)?' 2>/dev/null || semanage fcontext -m -t httpd_sys_rw_content_t '${local.docroot}/wp-content/uploads(/.*)?'
    semanage fcontext -a -t cert_t '${local.tls_dir}(/.*)?' 2>/dev/null || semanage fcontext -m -t cert_t '${local.tls_dir}(/.*)?'
  EOT
}

# For the confined servers' own port labels (caddy's and nginx's
# 15-selinux.hcl): has PROTO PORT says whether the port is http_port_t
# (semanage lists ranges and commas).
locals {
  selinux_has_http_port = "has() { semanage port -l | awk -v proto=\"$1\" -v port=\"$2\" '$1 == \"http_port_t\" && $2 == proto { for (i = 3; i <= NF; i++) { n = split($i, r, \"-\"); sub(\",\", \"\", r[1]); sub(\",\", \"\", r[n]); if (port + 0 >= r[1] + 0 && port + 0 <= r[n] + 0) f = 1 } } END { exit !f }'; }"
}

fact "selinux" {
  when = platform.package_manager == "dnf"
  run  = "if selinuxenabled 2>/dev/null; then getenforce | tr 'A-Z' 'a-z'; elif command -v getenforce >/dev/null || [ -e /etc/selinux/config ]; then echo disabled; else echo absent; fi"
}

# Every local SELinux change on the host (booleans, file contexts, ports),
# whoever made it: what wptest and the packages it installed changed.
fact "selinux_changes" {
  when = platform.package_manager == "dnf"
  run  = "out=$(if selinuxenabled 2>/dev/null && command -v semanage >/dev/null; then { semanage boolean -l -C -n; semanage fcontext -l -C -n; semanage port -l -C -n; } 2>/dev/null | sed 's/   */ /g' | grep . | sort | paste -sd ';'; fi); echo \"$${out:-none}\""
}
