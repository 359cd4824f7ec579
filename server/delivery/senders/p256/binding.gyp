{
  "targets": [
    {
      "target_name": "p256",
      "sources": ["p256.c"],
      "cflags": ["-O2", "-Wall", "-Wno-deprecated-declarations"]
    }
  ]
}
