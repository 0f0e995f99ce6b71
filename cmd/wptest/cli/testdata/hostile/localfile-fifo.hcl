experiment "hostile" {
  http_port  = 8080
  https_port = 8443
}
machines "local" {}
fixture "minimal" {
  seed = 1
}
scenario "p" {
  kind     = "page"
  visitors = [1]
  duration = "1s"
}
# A FIFO: opening it to read would block the run (and --plan) for good.
profile "cpanel-apache" {
  vars = { ruid2_source_url = "local+file://@FIFO@" } # <- refused
}
