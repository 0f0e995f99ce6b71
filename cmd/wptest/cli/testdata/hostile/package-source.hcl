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
# Any .deb installed as root.
profile "corehttpd" {
  vars = {
    package_source = "https://attacker.example/corehttpd.deb" # <- refused
    package_sha256 = "1111111111111111111111111111111111111111111111111111111111111111"
  }
}
