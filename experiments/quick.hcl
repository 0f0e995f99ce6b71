# quick.hcl: the cPanel vs corehttpd post's comparison in a few minutes on one machine.
#
#   wptest run experiments/quick.hcl --target local
#
# On a machine without internet, give cPanel's Apache its mod_ruid2 source
# from a copy (still checked against its SHA-256):
#   -var ruid2_source_url=file:///path/to/mod_ruid2.c
#
# Repetitions: two by default, which shows how much the numbers move but
# is too few for `wptest compare` to call any change significant (2 against 2:
# the smallest possible p is 0.33); give -var repetitions=5 to compare runs.
#
# Three columns (cPanel's Apache, Apache tuned, Caddy as the open
# event-driven peer) on ports 8080/8443, the "minimal" fixture, short windows
# and low concurrency, two repetitions interleaved (A B C A B C) so the
# report can say how much the numbers move between them. Compare CPU per
# request, not requests per second: the load generator shares the machine.
#
# The post's claims this file can check in kind, at its own scale: ratios
# and orders between its columns (CPU per request, bytes on the wire, time
# per page, who answers), never an absolute figure (none of requests per
# second: the load generator shares the machine). Caddy stands in for
# corehttpd, which is not public. The crowd's claims are left out: its 100
# visitors stay under cPanel's 150 workers, where the post measured none
# (-var cpanel_max_request_workers=25 shows the wall without a verdict).

experiment "quick" {
  description = "cPanel's Apache vs Apache tuned vs Caddy, small and fast (newcomers and CI)"
  repetitions = var.repetitions
  warmup      = "1s"
  http_port   = 8080
  https_port  = 8443
}

variable "repetitions" {
  default     = 2
  description = "repetitions of every point (1 to 100); compare needs at least 4 a run for p < 0.05"
}

variable "cpanel_max_request_workers" {
  default     = 150
  description = "MaxRequestWorkers of cPanel's Apache (cPanel's value: 150; 1 to 256)"
}

variable "seed" {
  default     = 1
  description = "fixture seed"
}

variable "ruid2_source_url" {
  default     = ""
  description = "where the server gets mod_ruid2 0.9.8's mod_ruid2.c, which the profile checks against its pinned SHA-256 (file:// for a copy on the server, local+file:///PATH for one on this machine); empty: upstream's file at the release's commit, the profile's default. Only -var sets it: an experiment file supplies no source."
}

machines "local" {}

fixture "minimal" {
  seed = var.seed
  # Pinned (fixture/testdata/golden.txt): another root stops the run (exit 5).
  root = var.seed == 1 ? "ae4c25a1018cd8be6d27987dcbdc2ff5fbc5d8072627880d634b904f7b36813d" : ""
}

profile "cpanel-apache" {
  label = "Apache as cPanel ships it"
  vars = {
    ruid2_source_url    = var.ruid2_source_url
    max_request_workers = var.cpanel_max_request_workers
  }
}

profile "tuned-apache" {
  label = "Apache tuned in WHM"
}

profile "caddy" {
  label = "Caddy (event-driven)"
}

# A WordPress page: CPU per page is the number to compare (CGI vs FPM).
# A fixed number of pages rather than a time window, so even a slow, busy
# machine gives every column enough pages to divide by.
scenario "page" {
  kind     = "page"
  path     = "/"
  gzip     = true
  visitors = [2]
  requests = 10
  duration = "0s"
  warmup   = "1s"
}

# A small JavaScript file, identical bytes from every server.
scenario "static" {
  kind     = "static"
  path     = "/wptest-probe.js"
  visitors = [10, 50]
  duration = "1500ms"
  warmup   = "300ms"
}

# A 95 KB stylesheet as a browser asks for it (Accept-Encoding: gzip).
scenario "compression" {
  kind     = "compression"
  path     = "/wp-includes/css/dist/block-library/style.min.css"
  visitors = [10]
  duration = "1500ms"
  warmup   = "300ms"
}

# A crowd of keep-alive visitors; a newcomer every 250 ms. Its warm-up is
# one click_every (left out): every visitor has clicked before the first newcomer.
scenario "crowd" {
  kind        = "crowd"
  path        = "/wptest-probe.js"
  visitors    = [100]
  click_every = "2s"
  probe_every = "250ms"
  give_up     = "5s"
  duration    = "2s"
}

# The Apache kit's metrics, scaled down.
scenario "kit" {
  kind          = "kit"
  path          = "/wptest-probe.js"
  visitors      = [10]
  levels        = [1, 10, 40]
  error_clients = 40
  duration      = "700ms"
  warmup        = "200ms"
}

# corehttpd is not public: the claims about it are checked against Caddy,
# which also keeps PHP-FPM's workers alive and serves stored gzip copies.
stand_in "corehttpd" {
  columns = ["caddy"]
  as      = "Caddy, the open event-driven server in its place"
}

deviation "site" {
  source    = "the cPanel vs corehttpd post"
  says      = "the post's site ran Elementor 4.3.2 and seven other plugins at 4 visitors; the minimal fixture here has none and 2 visitors, so a page costs a fraction of that and every page ratio is larger"
  scenarios = ["page"]
}

deviation "stylesheet" {
  source    = "the cPanel vs corehttpd post"
  says      = "the post's stylesheet was 140 KB (137.5 KB on the wire uncompressed), at 50 visitors; WordPress's block-library style.min.css here is smaller, at 10, so compressing it costs less"
  scenarios = ["compression"]
}

# The claims, as corehttpd-vs-cpanel.hcl writes them, at this file's steps.
# CPU per request is the web server's and PHP's (web_php_cpu_ms), not the
# whole machine's as the post counted it: here the machine is shared with
# the load generator and wptest, so its whole CPU is not the server's (a
# claim on it would read "not measured"); the ratios compare in kind.

claim "page-time" {
  source    = "the cPanel vs corehttpd post"
  quote     = "A WordPress page took 535 ms behind Apache and 191 ms behind corehttpd"
  scenario  = "page"
  visitors  = 2
  metric    = "mean_ms"
  published = { cpanel-apache = "535 ms", tuned-apache = "183 ms", corehttpd = "191 ms" }
  order     = "corehttpd < cpanel-apache"
  ratio     = "cpanel-apache / corehttpd"
  within    = 1.5
  contradiction "Apache as fast as corehttpd" {
    metric   = "mean_ms"
    measured = { cpanel-apache = "200 ms", corehttpd = "191 ms" }
  }
}

claim "page-time-tuned" {
  source    = "the cPanel vs corehttpd post"
  quote     = "pointed at the same PHP-FPM pool, it built the page in 183 ms and served 14.3 pages per second, the same as corehttpd"
  scenario  = "page"
  visitors  = 2
  metric    = "mean_ms"
  published = { tuned-apache = "183 ms", corehttpd = "191 ms" }
  ratio     = "tuned-apache / corehttpd"
  within    = 1.25
  contradiction "tuned Apache took twice corehttpd's time" {
    metric   = "mean_ms"
    measured = { tuned-apache = "380 ms", corehttpd = "191 ms" }
  }
}

claim "page-cpu" {
  source    = "the cPanel vs corehttpd post"
  quote     = "260 ms for corehttpd and 263 ms for tuned Apache on the same PHP-FPM pool, 870 ms when PHP runs through CGI"
  scenario  = "page"
  visitors  = 2
  metric    = "web_php_cpu_ms"
  published = { corehttpd = "260 ms", tuned-apache = "263 ms", cpanel-apache = "870 ms" }
  order     = "tuned-apache < cpanel-apache"
  ratio     = "tuned-apache / corehttpd"
  within    = 1.25
  contradiction "tuned Apache on PHP-FPM cost what CGI costs" {
    metric   = "web_php_cpu_ms"
    measured = { tuned-apache = "870 ms", corehttpd = "260 ms" }
  }
}

claim "cpu-static-50" {
  source    = "the cPanel vs corehttpd post"
  quote     = "0.135 ms of CPU for the small file at 50 visitors, against 0.167 ms for Apache as shipped and 0.153 ms tuned"
  scenario  = "static"
  visitors  = 50
  metric    = "web_php_cpu_ms"
  published = { corehttpd = "0.135 ms", cpanel-apache = "0.167 ms", tuned-apache = "0.153 ms" }
  order     = "corehttpd < tuned-apache < cpanel-apache"
  ratio     = "cpanel-apache / corehttpd"
  within    = 1.25
  contradiction "Apache as shipped spent less CPU than corehttpd" {
    metric   = "web_php_cpu_ms"
    measured = { cpanel-apache = "0.1 ms", corehttpd = "0.135 ms" }
  }
}

claim "compression-wire" {
  source          = "the cPanel vs corehttpd post"
  quote           = "Out of the box, that 140 KB stylesheet travels uncompressed to every visitor: 137.5 KB on the wire, nearly seven times what it has to be."
  scenario        = "compression"
  visitors        = 10
  metric          = "wire_bytes"
  published       = { cpanel-apache = "137.5 KB" }
  order           = "corehttpd < cpanel-apache"
  ratio           = "cpanel-apache / corehttpd"
  published_ratio = 7
  within          = 1.5
  contradiction "Apache's stylesheet travelled as small as corehttpd's" {
    metric   = "wire_bytes"
    measured = { cpanel-apache = "20 KB", corehttpd = "19.6 KB" }
  }
}

claim "cpu-stylesheet" {
  source    = "the cPanel vs corehttpd post"
  quote     = "corehttpd served the compressed stylesheet for 0.19 ms of CPU; Apache with mod_deflate spent 2.30 ms compressing it again every time, twelve times as much. Apache as shipped spent 0.38 ms"
  scenario  = "compression"
  visitors  = 10
  metric    = "web_php_cpu_ms"
  published = { corehttpd = "0.19 ms", tuned-apache = "2.30 ms", cpanel-apache = "0.38 ms" }
  order     = "corehttpd < cpanel-apache < tuned-apache"
  ratio     = "tuned-apache / corehttpd"
  within    = 2
  contradiction "compressing again cost no more than the stored copy" {
    metric   = "web_php_cpu_ms"
    measured = { tuned-apache = "0.2 ms", corehttpd = "0.19 ms" }
  }
}
