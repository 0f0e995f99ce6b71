# ab-1k.hcl: Rasmus's ab test. ab -c 5 -n 50000 -k against his two
# documents, prefork (cPanel's Apache, the "Apache 2 prefork" column) next
# to the event MPM with PHP-FPM: the static 1,024-byte HTML file of his
# message (a title, a heading, 24 lines of one letter repeated) and its PHP
# twin, which prints the same 1,024 bytes with one <?= ?> line. Both are
# site files every profile writes (profiles/_parts/site/20-site.hcl), so
# ab's "HTML transferred" is exactly requests x 1,024 bytes (his Apache 2
# counted 3,072 bytes too many on the static file).
#
#   wptest run experiments/ab-1k.hcl --target local
#
# On a machine without internet, give cPanel's Apache its mod_ruid2 source
# from a copy (still checked against its SHA-256):
#   -var ruid2_source_url=file:///path/to/mod_ruid2.c

experiment "ab-1k" {
  description = "ab -c 5 -n 50000 -k: Rasmus's 1,024-byte HTML file and its PHP twin, prefork vs event"
  repetitions = 1
  warmup      = "1s"
  http_port   = 8080
  https_port  = 8443
}

variable "requests" {
  default = 50000
}

variable "ruid2_source_url" {
  default     = "https://raw.githubusercontent.com/mind04/mod-ruid2/90af81cca03c149e5cf54488a43cc1b021d2cb98/mod_ruid2.c"
  description = "where the server fetches mod_ruid2 0.9.8's mod_ruid2.c (the profile checks its SHA-256); file:// for a local copy"
}

machines "local" {}

fixture "minimal" {
  seed = 1
  root = "ae4c25a1018cd8be6d27987dcbdc2ff5fbc5d8072627880d634b904f7b36813d"
}

profile "cpanel-apache" {
  label = "Apache prefork (cPanel)"
  vars  = { ruid2_source_url = var.ruid2_source_url }
}

profile "tuned-apache" {
  label = "Apache event + FPM"
}

scenario "static" {
  kind     = "ab"
  path     = "/wptest-1k.html"
  visitors = [5]
  requests = var.requests
  warmup   = "0s"
  duration = "0s"
}

scenario "php" {
  kind     = "ab"
  path     = "/wptest-1k.php"
  visitors = [5]
  requests = var.requests
  warmup   = "0s"
  duration = "0s"
}
