print("extension-host")
