# corehttpd-vs-cpanel.hcl: the matrix of the cPanel vs corehttpd post.
#
#   wptest run experiments/corehttpd-vs-cpanel.hcl --target hetzner \
#     -var corehttpd_package=/root/corehttpd.rpm -var corehttpd_sha256=...
#
# Two CCX23 (server + load generator) in one location; the agency fixture;
# Apache as cPanel ships it, Apache tuned in WHM, corehttpd (where its package
# is given) and Caddy beside it; a WordPress page at the post's concurrency,
# a crowd of 300/1,000/3,000, static at 10..1,000, compression, CPU per
# request and memory from srvstat on the server. 15 s windows after a 3 s
# warm-up (30 s for WordPress), as the post.

experiment "corehttpd-vs-cpanel" {
  description = "Apache as cPanel configures it, tuned Apache, corehttpd and Caddy on the same server"
  repetitions = 1
  warmup      = "3s"
}

variable "seed" {
  default = 1
}

variable "corehttpd_package" {
  default     = ""
  description = "corehttpd's package file on the server (.rpm/.deb) or https URL; empty leaves the corehttpd column out"
}

variable "corehttpd_sha256" {
  default = ""
}

machines "hetzner" {
  server_type     = "ccx23"
  image           = "alma-9"
  location        = "fsn1"
  load_generators = 1
  ttl             = "6h"
}

fixture "agency" {
  seed = var.seed
  root = var.seed == 1 ? "a8bc3bfb88bb3e02eb045b6af0b63bfce54da3147df2d5a52e3da6af43d3d0c7" : ""
}

profile "cpanel-apache" {
  label = "Apache, as cPanel ships it"
}

profile "tuned-apache" {
  label = "Apache, tuned in WHM"
}

profile "corehttpd" {
  label   = "corehttpd"
  enabled = var.corehttpd_package != ""
  reason  = "corehttpd is not public: pass -var corehttpd_package=... -var corehttpd_sha256=..."
  vars = {
    package_source = var.corehttpd_package
    package_sha256 = var.corehttpd_sha256
  }
}

profile "caddy" {
  label = "Caddy"
}

scenario "page" {
  kind     = "page"
  path     = "/"
  gzip     = true
  visitors = [4, 150]
  duration = "30s"
  warmup   = "3s"
}

scenario "crowd" {
  kind        = "crowd"
  path        = "/wptest-probe.js"
  visitors    = [300, 1000, 3000]
  click_every = "10s"
  probe_every = "500ms"
  give_up     = "30s"
  duration    = "30s"
}

scenario "static" {
  kind     = "static"
  path     = "/wptest-probe.js"
  visitors = [10, 50, 100, 200, 500, 1000]
  duration = "15s"
  warmup   = "3s"
}

scenario "compression" {
  kind     = "compression"
  path     = "/wp-includes/css/dist/block-library/style.min.css"
  visitors = [50, 1000]
  duration = "15s"
  warmup   = "3s"
}

scenario "compression-js" {
  kind     = "compression"
  path     = "/wptest-probe.js"
  visitors = [50]
  duration = "15s"
  warmup   = "3s"
}

scenario "h2" {
  kind     = "static"
  path     = "/wptest-probe.js"
  proto    = "h2"
  visitors = [50]
  duration = "15s"
  warmup   = "3s"
  profiles = ["tuned-apache", "corehttpd", "caddy"]
}

# What the protocols change for a visitor: each loads the home page and
# every asset it references, as a browser with an empty cache does, over
# up to 6 HTTP/1.1 connections, or over one HTTP/2 connection. The figures
# are the page-view time a browser reports and the bytes per page view; a
# column whose server does not serve h2 is n/a in browse-h2.
scenario "browse-h1" {
  kind     = "browse"
  path     = "/"
  proto    = "h1"
  conns    = 6
  visitors = [10]
  duration = "30s"
  warmup   = "5s"
}

scenario "browse-h2" {
  kind     = "browse"
  path     = "/"
  proto    = "h2"
  visitors = [10]
  duration = "30s"
  warmup   = "5s"
}
