# apache-kit.hcl: the ten metrics of the Apache performance kit (third
# seed) with its PASS/FAIL targets, for each Apache profile, on one machine
# over loopback, as the kit runs: startup, throughput, latency, concurrency
# scaling, keep-alive effect, transfer rate, error rate, CPU, memory, workers.
#
#   wptest run experiments/apache-kit.hcl --target local

experiment "apache-kit" {
  description = "The Apache kit's ten metrics for cPanel's Apache and tuned Apache"
  repetitions = 3
  warmup      = "3s"
  http_port   = 8080
  https_port  = 8443
}

variable "seed" {
  default = 1
}

machines "local" {}

fixture "minimal" {
  seed = var.seed
  root = var.seed == 1 ? "ae4c25a1018cd8be6d27987dcbdc2ff5fbc5d8072627880d634b904f7b36813d" : ""
}

profile "cpanel-apache" {
  label = "Apache as cPanel ships it"
}

profile "tuned-apache" {
  label = "Apache tuned"
}

# small.html of the kit: a 1 KB static file; large.bin: the largest
# static file the fixture has is used for the transfer rate.
scenario "kit" {
  kind          = "kit"
  path          = "/wp-includes/blocks/comments-pagination/style.min.css"
  transfer_path = "/wp-includes/js/jquery/jquery.min.js"
  visitors      = [50]
  levels        = [1, 10, 50, 100, 200, 400]
  error_clients = 400
  duration      = "10s"
  warmup        = "3s"
}
