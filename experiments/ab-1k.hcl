# ab-1k.hcl: Rasmus's ab test. ab -c 5 -n 50000 -k against a 1 KB
# static file and a PHP page, prefork (cPanel's Apache, the "Apache 2
# prefork" column) next to the event MPM with PHP-FPM.
#
#   wptest run experiments/ab-1k.hcl --target local

experiment "ab-1k" {
  description = "ab -c 5 -n 50000 -k: a 1 KB file and a small PHP page, prefork vs event"
  repetitions = 1
  warmup      = "1s"
  http_port   = 8080
  https_port  = 8443
}

variable "requests" {
  default = 50000
}

machines "local" {}

fixture "minimal" {
  seed = 1
  root = "ae4c25a1018cd8be6d27987dcbdc2ff5fbc5d8072627880d634b904f7b36813d"
}

profile "cpanel-apache" {
  label = "Apache prefork (cPanel)"
}

profile "tuned-apache" {
  label = "Apache event + FPM"
}

scenario "static" {
  kind     = "ab"
  path     = "/wp-includes/blocks/comments-pagination/style.min.css"
  visitors = [5]
  requests = var.requests
  warmup   = "0s"
  duration = "0s"
}

scenario "php" {
  kind     = "ab"
  path     = "/wptest-hello.php"
  visitors = [5]
  requests = var.requests
  warmup   = "0s"
  duration = "0s"
}
