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
