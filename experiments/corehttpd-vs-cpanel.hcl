# corehttpd-vs-cpanel.hcl: the matrix of the cPanel vs corehttpd post.
#
#   wptest run experiments/corehttpd-vs-cpanel.hcl --target hetzner \
#     -var corehttpd_package=/root/corehttpd.rpm -var corehttpd_sha256=...
#
# Two CCX23 (server + load generator) in one location; the agency fixture;
# Apache as cPanel ships it, Apache tuned in WHM (and again with
# MaxRequestWorkers 400, on the crowd and static scenarios, as the post),
# corehttpd (where its package is given) and Caddy and nginx beside it: the
# open event-driven servers that stand in for corehttpd, which is not
# public; a WordPress page at the post's concurrency,
# a crowd of 300/1,000/3,000, static at 10..1,000, compression, CPU per
# request and memory from srvstat on the server. 15 s windows after a 3 s
# warm-up (30 s for WordPress), as the post.

experiment "corehttpd-vs-cpanel" {
  description = "Apache as cPanel configures it, tuned Apache (150 and 400 workers), corehttpd, Caddy and nginx on the same server"
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

# The post's second tuned column: "Raising the limit moves the wall rather
# than removing it: at 400 workers ...". Only MaxRequestWorkers (and the
# ServerLimit that follows it) differs, so the swap from tuned-apache
# rewrites httpd.conf and restarts Apache, nothing else.
column "tuned-400" {
  profile = "tuned-apache"
  label   = "Apache tuned in WHM, 400 workers"
  vars    = { max_request_workers = 400 }
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

profile "nginx" {
  label = "nginx"
}

scenario "page" {
  kind     = "page"
  path     = "/"
  gzip     = true
  visitors = [4, 150]
  duration = "30s"
  warmup   = "3s"
  columns  = ["cpanel-apache", "tuned-apache", "corehttpd", "caddy", "nginx"]
}

# The crowd and static scenarios run on every column, tuned-400 among
# them: the post measured its 400-worker Apache there.
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
  columns  = ["cpanel-apache", "tuned-apache", "corehttpd", "caddy", "nginx"]
}

scenario "compression-js" {
  kind     = "compression"
  path     = "/wptest-probe.js"
  visitors = [50]
  duration = "15s"
  warmup   = "3s"
  columns  = ["cpanel-apache", "tuned-apache", "corehttpd", "caddy", "nginx"]
}

scenario "h2" {
  kind     = "static"
  path     = "/wptest-probe.js"
  proto    = "h2"
  visitors = [50]
  duration = "15s"
  warmup   = "3s"
  columns  = ["tuned-apache", "corehttpd", "caddy", "nginx"]
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
  columns  = ["cpanel-apache", "tuned-apache", "corehttpd", "caddy", "nginx"]
}

scenario "browse-h2" {
  kind     = "browse"
  path     = "/"
  proto    = "h2"
  visitors = [10]
  duration = "30s"
  warmup   = "5s"
  columns  = ["cpanel-apache", "tuned-apache", "corehttpd", "caddy", "nginx"]
}
