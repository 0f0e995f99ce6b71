# 30-precompressed.hcl: static files compressed once and served as stored
# (Caddy's "precompressed gzip", nginx's gzip_static, corehttpd's model).
# The server's own configuration says to serve the .gz; this part writes
# them and proves the bytes on the wire are the stored ones.

# Compressible static files are compressed once per version; a rerun after
# the fixture adds files compresses only those.
# As the site user (the docroot is theirs): root writes nothing there.
command "precompress" {
  unless  = "${local.lib_dir}/wptest-precompress --check ${local.docroot} ${var.site_user} >/dev/null"
  run     = "${local.lib_dir}/wptest-precompress ${local.docroot} ${var.site_user}"
  timeout = "10m"
}

# The copies are this profile's files in the site: recorded after every
# apply and seed, checked by verify, and removed when a profile that does
# not precompress takes the host (one that does keeps them). Listed and
# removed as the site user too.
site_files "precompressed" {
  list   = "${local.lib_dir}/wptest-precompress --list ${local.docroot} ${var.site_user}"
  remove = "${local.lib_dir}/wptest-precompress --remove ${local.docroot} ${var.site_user}"
}

# A seed replaces core's and the fixture's files and with them the copies
# inside: they are made again for the seeded site.
site_refresh "precompress" {
  run = "${local.lib_dir}/wptest-precompress ${local.docroot} ${var.site_user}"
}

check "css_precompressed_header" {
  http {
    url           = "http://127.0.0.1:${var.http_port}/wptest-probe.css"
    headers       = { "Accept-Encoding" = "gzip" }
    expect_header = { "Content-Encoding" = "^gzip$" }
  }
}

# The bytes on the wire are the stored .gz, not a fresh compression.
check "css_precompressed_bytes" {
  command {
    run          = "curl -fsS -H 'Accept-Encoding: gzip' http://127.0.0.1:${var.http_port}/wptest-probe.css | cmp - ${local.docroot}/wptest-probe.css.gz && echo same bytes as the stored .gz"
    expect_regex = "same bytes as the stored \\.gz"
  }
}
