print("intervald")
