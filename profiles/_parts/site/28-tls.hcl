# 28-tls.hcl: the host's one self-signed certificate, byte-identical in every
# profile (profiles/shared_test.go). It comes after the packages (25-fpm.hcl,
# and the profile's 10-*.hcl) because the key's group, the web servers' group,
# only exists once they are installed on almalinux-9 ("apache").

# Made once and shared by every profile. The key's group is the web servers' group (Caddy does not start
# as root and must read it).
command "tls_cert" {
  creates = local.tls_cert
  run     = "${local.lib_dir}/wptest-tls-cert ${local.tls_dir} ${var.server_name} ${platform.values.web_group}"
}
