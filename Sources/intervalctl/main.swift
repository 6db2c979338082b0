print("intervalctl")
